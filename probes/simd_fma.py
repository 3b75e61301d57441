"""Measured compute peak: independent vector multiply-adds on registers, one core and all cores.

32 independent float64 accumulators updated with `a = a * x + y` under numba `fastmath`, so
LLVM contracts to FMA and packs them into SIMD registers (enough independent chains to cover
the FMA latency).  The all-cores figure runs one such kernel per thread with `prange`.
"""

import numpy as np
from numba import get_num_threads, njit, prange

NAME = "simd_fma"
TITLE = "SIMD FMA peak"
UNIT = "GFLOP/s"
LAYER = "simd_compute"
REQUIRES = ("numba",)
ACCUMULATORS = 32
STEPS = 400_000

_names = [f"a{i}" for i in range(ACCUMULATORS)]
_source = "\n".join(
    [
        "def _kernel(n, x, y):",
        *(f"    {name} = {1.0 + i / 100}" for i, name in enumerate(_names)),
        "    for _ in range(n):",
        *(f"        {name} = {name} * x + y" for name in _names),
        f"    return {' + '.join(_names)}",
    ]
)
_namespace = {}
exec(compile(_source, "<simd_fma>", "exec"), _namespace)
_kernel = njit(fastmath=True, cache=False)(_namespace["_kernel"])


@njit(parallel=True, fastmath=True, cache=False)
def _all_cores(n, x, y, out):
    for t in prange(out.shape[0]):
        out[t] = _kernel(n, x, y)


def measure(ctx):
    flops = 2 * ACCUMULATORS * STEPS
    _kernel(10, 0.999, 0.001)
    threads = get_num_threads()
    out = np.zeros(threads)
    _all_cores(10, 0.999, 0.001, out)
    one = [flops / t / 1e9 for t in ctx.time(_kernel, STEPS, 0.999999, 1e-9)]
    every = [threads * flops / t / 1e9 for t in ctx.time(_all_cores, STEPS, 0.999999, 1e-9, out)]
    one.sort()
    return {
        "samples": every,
        "details": {"one_core_gflops": one[len(one) // 2], "threads": threads},
    }
