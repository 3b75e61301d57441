"""The clock the cores actually run at (GHz): a compiled chain of dependent integer operations.

`x = (x + 1) ^ m` repeated under numba: each step is an add and an xor, each one cycle of
latency on every current x86 and ARM core, and each waits for the previous step, so the chain
runs at exactly 2 cycles per step whatever the pipeline width (Agner Fog, instruction tables:
ADD and XOR r64 latency 1).  GHz = 2 × steps / time.  Virtual machines often report only the
nominal clock while the cores run faster (turbo).
"""

from numba import njit

NAME = "clock"
TITLE = "measured core clock"
UNIT = "GHz"
LAYER = "scalar_compute"
REQUIRES = ("numba",)
STEPS = 20_000_000
CYCLES_PER_STEP = 2


@njit(cache=False)
def _chain(n, m):
    x = 0
    for _ in range(n):
        x = (x + 1) ^ m
    return x


def measure(ctx):
    _chain(10, 3)
    times = ctx.time(_chain, STEPS, 12345)
    return {
        "samples": [CYCLES_PER_STEP * STEPS / t / 1e9 for t in times],
        "details": {"steps": STEPS, "cycles_per_step": CYCLES_PER_STEP},
    }
