"""Latency-bound GFLOP/s of compiled scalar code: a dependent multiply-add chain under numba.

`acc = acc * x + y` repeated: each step waits for the previous one, so this is the rate of
scalar code that the hardware cannot overlap (2 flops per step; no fastmath, so no FMA
contraction or reassociation).
"""

from numba import njit

NAME = "scalar_fma"
TITLE = "compiled scalar chain"
UNIT = "GFLOP/s"
LAYER = "scalar_compute"
REQUIRES = ("numba",)
STEPS = 2_000_000


@njit(cache=False)
def _chain(n, x, y):
    acc = 1.0
    for _ in range(n):
        acc = acc * x + y
    return acc


def measure(ctx):
    _chain(10, 0.999, 0.001)  # compile
    times = ctx.time(_chain, STEPS, 0.999999, 1e-9)
    return {"samples": [2 * STEPS / t / 1e9 for t in times], "details": {"steps": STEPS}}
