"""µs fixed cost of one small numpy operation: `x * y` timed over a sweep of sizes, fitted a + b·n.

The intercept a is the library layers paid per call (argument parsing, ufunc and dtype
resolution, output allocation); the slope b is the per-element cost.
"""

import numpy as np

NAME = "numpy_call"
TITLE = "numpy call layers"
UNIT = "µs/call"
LAYER = "library_layers"
SIZES = (1, 16, 128, 1024, 4096)


def _multiply(x, y):
    return x * y


def measure(ctx):
    times = {}
    for n in SIZES:
        x = np.full(n, 1.5)
        y = np.full(n, 2.5)
        times[n] = ctx.time(_multiply, x, y)
    sizes = np.array(SIZES, dtype=float)
    samples = []
    slopes = []
    for i in range(ctx.repeats):
        slope, intercept = np.polyfit(sizes, [times[n][i] for n in SIZES], 1)
        samples.append(float(intercept) * 1e6)
        slopes.append(float(slope) * 1e9)
    slopes.sort()
    return {"samples": samples, "details": {"ns_per_element": slopes[len(slopes) // 2]}}
