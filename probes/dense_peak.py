"""Dense-kernel peak: numpy's matmul (the BLAS GEMM) at n = 1536, all threads, float64 and float32.

The issue's "measured compute peak" is the best of the SIMD FMA probe and the dense kernel at
a large size; this probe is the latter, measured once per machine so the limits do not depend
on which rungs a run selected.  1536 is large enough for OpenBLAS to reach its plateau on a
2-core Zen 4 VM (measured: 99 GFLOP/s at 1024, 107 at 1536, 104 at 2048 float64) while one call
stays below 0.1 s.

``one_thread_gflops`` (``float32_one_thread_gflops``): the product at n = 1024 with BLAS
limited to one thread (threadpoolctl, when the worker's interpreter has it): the rate the
compiled-rung model prices a 1-thread BLAS rung's flops at (``analysis.compiled``), and with the
all-threads value the library's parallel efficiency.  One thread is on its plateau by then and a
call takes a third of the time: on a 2-vCPU Zen 3, 2026-12-07, two passes each, float64 44.2 at
768, 42.4–42.8 at 1024, 40.3–42.9 GFLOP/s at 1536 (float32 93.0–94.2, 93.0–93.3, 95.1–95.5),
the 1536 pair taking 1.5–1.6 s of the probe's process against 0.46.
"""

import numpy as np

from overhead_tui.api import ProbeMeasurement

NAME = "dense_peak"
TITLE = "dense kernel peak (GEMM, n = 1536)"
UNIT = "GFLOP/s"
LAYER = "dense_kernel"
REQUIRES = ()
N = 1536
ONE_THREAD_N = 1024
"""The side of the one-thread products (``numpy_matmul_1thread``'s default size)."""


def _gflops(ctx, dtype, n=N):
    rng = np.random.default_rng(0)
    a = rng.random((n, n)).astype(dtype)
    b = rng.random((n, n)).astype(dtype)
    out = np.empty((n, n), dtype=dtype)
    np.matmul(a, b, out=out)
    return [2 * n**3 / t / 1e9 for t in ctx.time(np.matmul, a, b, out)]


def _one_thread(ctx, dtype):
    """Median GFLOP/s with BLAS on one thread, or None without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return None
    with threadpool_limits(limits=1, user_api="blas"):
        found = sorted(_gflops(ctx, dtype, ONE_THREAD_N))
    return found[len(found) // 2]


def measure(ctx):
    every64 = _gflops(ctx, np.float64)
    every32 = sorted(_gflops(ctx, np.float32))
    details = {
        "n": N,
        "one_thread_n": ONE_THREAD_N,
        "float32_gflops": every32[len(every32) // 2],
    }
    if (one := _one_thread(ctx, np.float64)) is not None:
        details["one_thread_gflops"] = one
    if (one := _one_thread(ctx, np.float32)) is not None:
        details["float32_one_thread_gflops"] = one
    return ProbeMeasurement(every64, details)
