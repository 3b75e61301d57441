"""Memory bandwidth in GB/s: the STREAM triad `a[i] = b[i] + s * c[i]`, one thread and all.

Arrays of 2²³ float64 (64 MiB each, far beyond the caches); 24 bytes move per element (read b
and c, write a), as STREAM counts them (McCalpin, STREAM benchmark rules; write-allocate
traffic is not counted).  The loop is C (``worker.cbuild``, ``-O3 -march=native``); all
threads: one slice of the arrays per usable CPU, on as many threads at once (cffi releases
the GIL).
"""

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numpy as np

from overhead_tui.api import build, usable_cpus

NAME = "stream_triad"
TITLE = "memory bandwidth (triad)"
UNIT = "GB/s"
LAYER = "memory"
REQUIRES = ("cffi",)
N = 2**23
FLAGS = ["-O3", "-march=native"]
SOURCE = r"""
void triad(double *a, const double *b, const double *c, double s, long n) {
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
}
"""
CDEF = "void triad(double *a, const double *b, const double *c, double s, long n);"


def measure(ctx):
    ffi, lib, _ = build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    a = np.zeros(N)
    b = np.full(N, 1.5)
    c = np.full(N, 2.5)
    pa, pb, pc = (ffi.from_buffer("double[]", x) for x in (a, b, c))
    threads = usable_cpus()
    bounds = [N * t // threads for t in range(threads + 1)]
    slices = list(pairwise(bounds))

    def one():
        lib.triad(pa, pb, pc, 3.0, N)

    with ThreadPoolExecutor(threads) as pool:

        def every():
            futures = [
                pool.submit(lib.triad, pa + lo, pb + lo, pc + lo, 3.0, hi - lo) for lo, hi in slices
            ]
            for future in futures:
                future.result()

        moved = 24 * N
        one_gbs = sorted(moved / t / 1e9 for t in ctx.time(one))
        every_gbs = [moved / t / 1e9 for t in ctx.time(every)]
    if not np.allclose(a[:: N // 7], 1.5 + 3.0 * 2.5):
        raise RuntimeError("the triad did not compute a = b + 3·c")
    return {
        "samples": every_gbs,
        "details": {"one_thread_gbs": one_gbs[len(one_gbs) // 2], "threads": threads},
    }
