"""Memory bandwidth in GB/s: the STREAM triad `a[i] = b[i] + s * c[i]`, one thread and all.

Arrays of 2²³ float64 (64 MiB each, far beyond the caches); 24 bytes move per element (read b
and c, write a), as STREAM counts them (McCalpin, STREAM benchmark rules; write-allocate
traffic is not counted).
"""

import numpy as np
from numba import get_num_threads, njit, prange

NAME = "stream_triad"
TITLE = "memory bandwidth (triad)"
UNIT = "GB/s"
LAYER = "memory"
REQUIRES = ("numba",)
N = 2**23


@njit(fastmath=True, cache=False)
def _triad(a, b, c, s):
    for i in range(a.shape[0]):
        a[i] = b[i] + s * c[i]


@njit(parallel=True, fastmath=True, cache=False)
def _triad_parallel(a, b, c, s):
    for i in prange(a.shape[0]):
        a[i] = b[i] + s * c[i]


def measure(ctx):
    a = np.zeros(N)
    b = np.full(N, 1.5)
    c = np.full(N, 2.5)
    moved = 24 * N
    one = sorted(moved / t / 1e9 for t in ctx.time(_triad, a, b, c, 3.0))
    every = [moved / t / 1e9 for t in ctx.time(_triad_parallel, a, b, c, 3.0)]
    return {
        "samples": every,
        "details": {"one_thread_gbs": one[len(one) // 2], "threads": get_num_threads()},
    }
