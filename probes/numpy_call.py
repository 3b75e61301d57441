"""µs fixed cost of one small numpy operation: `x * y` timed over a sweep of sizes, fitted a + b·n.

The intercept a is the library layers paid per call (argument parsing, ufunc and dtype
resolution, output allocation); the slope b is the per-element cost.  The details also give
the cost of one operation on numpy *scalars* (`arr[i, j]` indexing and a float64 scalar
multiply, each timed against the tight reference loop), which is what element-wise loops over
arrays pay instead.
"""

from itertools import repeat

import numpy as np

from overhead_tui.api import paired_samples

NAME = "numpy_call"
TITLE = "numpy call layers"
UNIT = "µs/call"
LAYER = "library_layers"
SIZES = (1, 16, 128, 1024, 4096)


def _multiply(x, y):
    return x * y


def _index(n, arr):
    i = 1
    for _ in repeat(None, n):
        y = arr[i, i]
    return y


def _scalar_multiply(n, x, z):
    for _ in repeat(None, n):
        y = x * z
    return y


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


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
    index, _ = paired_samples(ctx, _index, (np.ones((4, 4)),), 50_000)
    multiply, _ = paired_samples(ctx, _scalar_multiply, (np.float64(1.5), np.float64(2.5)), 50_000)
    return {
        "samples": samples,
        "details": {
            "ns_per_element": slopes[len(slopes) // 2],
            "scalar_op_ns": (_median(index) + _median(multiply)) / 2,
            "scalar_index_ns": _median(index),
            "scalar_multiply_ns": _median(multiply),
        },
    }
