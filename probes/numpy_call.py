"""µs fixed cost of one small numpy operation: `x * y` timed over a sweep of sizes, fitted a + b·n.

The intercept a is the library layers paid per call (argument parsing, ufunc and dtype
resolution, output allocation); the slope b is the per-element cost.  The details also give
the cost of one operation on numpy *scalars*, which is what element-wise loops over arrays pay
instead, each timed against the tight reference loop: `arr[t]` with a ready index tuple
(``scalar_load_ns``: parses the tuple, creates a scalar), `arr[t] = x` (``scalar_store_ns``:
unboxes one, creates nothing), a float64 scalar multiply (``scalar_multiply_ns``: creates one)
and building the index tuple `(i, j)` itself (``index_tuple_ns``).  ``scalar_index_ns`` = load +
tuple (what `arr[i, j]` costs), ``scalar_op_ns`` its mean with the multiply (older summaries
priced every numpy scalar instruction at it).
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


def _load(n, arr, index):
    for _ in repeat(None, n):
        y = arr[index]
    return y


def _store(n, arr, index, x):
    for _ in repeat(None, n):
        arr[index] = x


def _index_tuple(n, i, j):
    for _ in repeat(None, n):
        y = (i, j)
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
    arr = np.ones((4, 4))
    load, _ = paired_samples(ctx, _load, (arr, (1, 2)), 50_000)
    store, _ = paired_samples(ctx, _store, (arr, (1, 2), np.float64(1.5)), 50_000)
    index_tuple, _ = paired_samples(ctx, _index_tuple, (1, 2), 50_000)
    multiply, _ = paired_samples(ctx, _scalar_multiply, (np.float64(1.5), np.float64(2.5)), 50_000)
    index = _median(load) + _median(index_tuple)
    return {
        "samples": samples,
        "details": {
            "ns_per_element": slopes[len(slopes) // 2],
            "scalar_op_ns": (index + _median(multiply)) / 2,
            "scalar_index_ns": index,
            "scalar_load_ns": _median(load),
            "scalar_store_ns": _median(store),
            "index_tuple_ns": _median(index_tuple),
            "scalar_multiply_ns": _median(multiply),
        },
    }
