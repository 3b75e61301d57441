"""Memory bandwidth in GB/s: the STREAM triad `a[i] = b[i] + s * c[i]`, one thread and all.

``pack_one_thread_gbs``: the rate at which one thread packs a B of 4096 × 4096 float64 (128
MiB, beyond the caches) into the micro-panels of ``c_blocked_packed`` (its own ``pack_all``
at this CPU's blocking), counting the bytes read and written: what packing B costs a call of
a BLAS-style GEMM, whatever its batch (``analysis.shapes``).

Arrays of 2²³ float64 (64 MiB each, far beyond the caches); 24 bytes move per element (read b
and c, write a), as STREAM counts them (McCalpin, STREAM benchmark rules; write-allocate
traffic is not counted).  The loop is C (``kit.cbuild``, ``-O3 -march=native``); all
threads: one slice of the arrays per usable CPU, on as many threads at once (cffi releases
the GIL).
"""

from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numpy as np

from overhead_tui.api import (
    PACK_CDEF,
    PACKED_GEMM_SOURCE,
    ProbeMeasurement,
    build,
    cpu_flags,
    gemm_blocking,
    read_cache_sizes,
    usable_cpus,
)

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


def prepare():
    """Build the triad and the packing kernel (a run builds them before anything is timed)."""
    build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    _packing_library()


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
    details = {
        "one_thread_gbs": one_gbs[len(one_gbs) // 2],
        "threads": threads,
        "pack_one_thread_gbs": _packing_gbs(ctx),
    }
    return ProbeMeasurement(every_gbs, details)


PACK_SIDE = 4096


def _packing_library():
    """(this CPU's blocking, the packing kernel built with its defines)."""
    blocking = gemm_blocking(read_cache_sizes(), cpu_flags())
    flags = ["-O3", "-march=native", *blocking.defines()]
    return blocking, build("pack_all", PACKED_GEMM_SOURCE, flags, "float64", cdef=PACK_CDEF)


def _packing_gbs(ctx):
    """GB/s (read + written) of packing a B beyond the caches, one thread."""
    blocking, (ffi, lib, _) = _packing_library()
    b = np.random.default_rng(0).random((PACK_SIDE, PACK_SIDE))
    packed = np.zeros(blocking.packed_b_values)
    pb, pp = ffi.from_buffer("double[]", b), ffi.from_buffer("double[]", packed)
    times = ctx.time(lib.pack_all, pb, PACK_SIDE, PACK_SIDE, pp)
    row = (PACK_SIDE - 1) // blocking.kc * blocking.kc  # the last panel packed starts here
    column = (PACK_SIDE - 1) // blocking.nc * blocking.nc
    if not np.array_equal(packed[: blocking.nr], b[row, column : column + blocking.nr]):
        raise RuntimeError("pack_all did not pack B")
    rates = sorted(2 * b.nbytes / t / 1e9 for t in times)
    return rates[len(rates) // 2]
