"""Dense-kernel peak: numpy's matmul (the BLAS GEMM) at n = 1536, all threads, float64 and float32.

The issue's "measured compute peak" is the best of the SIMD FMA probe and the dense kernel at
a large size; this probe is the latter, measured once per machine so the limits do not depend
on which rungs a run selected.  1536 is large enough for OpenBLAS to reach its plateau on a
2-core Zen 4 VM (measured: 99 GFLOP/s at 1024, 107 at 1536, 104 at 2048 float64) while one call
stays below 0.1 s.

``one_thread_gflops`` (``float32_one_thread_gflops``): the same product with BLAS limited to
one thread (threadpoolctl, when the worker's interpreter has it): the rate the compiled-rung model
prices a 1-thread BLAS rung's flops at (``analysis.compiled``), and with the all-threads value
the library's parallel efficiency.
"""

import numpy as np

from overhead_tui.api import ProbeMeasurement

NAME = "dense_peak"
TITLE = "dense kernel peak (GEMM, n = 1536)"
UNIT = "GFLOP/s"
LAYER = "dense_kernel"
REQUIRES = ()
N = 1536


def _gflops(ctx, dtype):
    rng = np.random.default_rng(0)
    a = rng.random((N, N)).astype(dtype)
    b = rng.random((N, N)).astype(dtype)
    out = np.empty((N, N), dtype=dtype)
    np.matmul(a, b, out=out)
    return [2 * N**3 / t / 1e9 for t in ctx.time(np.matmul, a, b, out)]


def _one_thread(ctx, dtype):
    """Median GFLOP/s with BLAS on one thread, or None without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    with threadpool_limits(limits=1, user_api="blas"):
        found = sorted(_gflops(ctx, dtype))
    return found[len(found) // 2]


def measure(ctx):
    every64 = _gflops(ctx, np.float64)
    every32 = sorted(_gflops(ctx, np.float32))
    details = {"n": N, "float32_gflops": every32[len(every32) // 2]}
    if (one := _one_thread(ctx, np.float64)) is not None:
        details["one_thread_gflops"] = one
    if (one := _one_thread(ctx, np.float32)) is not None:
        details["float32_one_thread_gflops"] = one
    return ProbeMeasurement(every64, details)
