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

numpy's layers by kind of operation (the kinds of ``worker.counting.numpy_census``): each kind
is timed at a sweep of sizes, 1 to 4·10⁶ elements (einsum: n = 2 … 512, n³ multiply-adds;
``outer``, ``broadcast`` (an m × 1 column times an m × m matrix), ``reduce_outer`` (an
m × m matrix summed over axis 0) and ``gemv`` (a vector times an m × m matrix, BLAS's
dgemv): m = 1 … 2048; ``dot``: two vectors, BLAS's ddot),
so its per-element rate is measured in every cache level and in memory.  Per kind: the fixed
cost of a call (``KIND_call_ns``, the intercept of a + b·E over the sizes with E ≤ 4096), the
sizes (``KIND_elements``) and the time per element beyond the fixed cost at each
(``KIND_ns_per_element``); ``view_ns`` is one index returning a view (``b[k]``) and
``scalar_operand_ns`` what a scalar operand adds to a ufunc call (``x * a[i, k]``), and
``inner_loop_ns`` one more start of a ufunc's inner loop (a product over short rows numpy
cannot join, against the same elements contiguous).  All
float64; an operation at another precision is priced by its bytes.
"""

from functools import partial
from itertools import repeat

import numpy as np

from overhead_tui.api import ProbeContext, ProbeMeasurement, paired_samples

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


def _view(n, arr, index):
    for _ in repeat(None, n):
        y = arr[index]
    return y


ELEMENTS = tuple(4**k for k in range(12))
"""Sizes of the one-dimensional kinds: 1 … 4,194,304 elements (32 MiB per float64 array)."""
OUTER_SIDES = tuple(2**k for k in range(12))
"""``outer``: m × m outputs from two vectors of m, m = 1 … 2048."""
EINSUM_SIDES = (2, 4, 8, 16, 32, 64, 128, 256, 512)
"""``einsum("ij,jk->ik")`` of two n × n matrices (n³ multiply-adds)."""
FIXED_COST_ELEMENTS = 4096
"""The sizes a kind's fixed cost per call is fitted over (E ≤ this: cache-resident)."""


def _kinds():
    """{kind: [(elements, function, args)]}: one call of each kind at each size."""
    kinds = {}
    ones = {e: np.full(e, 1.5) for e in ELEMENTS}
    twos = {e: np.full(e, 2.5) for e in ELEMENTS}
    kinds["elementwise"] = [(e, np.multiply, (ones[e], twos[e])) for e in ELEMENTS]
    kinds["elementwise_out"] = [(e, np.add, (ones[e], twos[e], ones[e])) for e in ELEMENTS]
    kinds["reduce"] = [(e, np.add.reduce, (ones[e],)) for e in ELEMENTS]
    kinds["create"] = [(e, np.zeros, (e,)) for e in ELEMENTS]
    kinds["outer"] = [
        (
            m * m,
            partial(np.multiply.outer, out=np.empty((m, m))),
            (ones[1][:1].repeat(m), twos[1][:1].repeat(m)),
        )
        for m in OUTER_SIDES
    ]
    squares = {m: np.full((m, m), 2.5) for m in OUTER_SIDES}
    kinds["broadcast"] = [
        (m * m, np.multiply, (np.full((m, 1), 1.5), squares[m])) for m in OUTER_SIDES
    ]
    kinds["reduce_outer"] = [
        (m * m, partial(np.add.reduce, axis=0), (squares[m],)) for m in OUTER_SIDES
    ]
    kinds["dot"] = [(e, np.dot, (ones[e], twos[e])) for e in ELEMENTS]
    kinds["gemv"] = [(m * m, np.dot, (np.full(m, 1.5), squares[m])) for m in OUTER_SIDES]
    einsum = partial(np.einsum, "ij,jk->ik", optimize=False)
    kinds["einsum"] = [
        (n**3, einsum, (np.full((n, n), 1.5), np.full((n, n), 2.5))) for n in EINSUM_SIDES
    ]
    return kinds


RATE_SAMPLE_S = 0.002
"""Seconds of each of the three samples per kind and size (120 timings; the probe's own
samples are the caller's ``min_sample_s``).  On a 2-vCPU Zen 3, 2026-12-07, two passes at
each: 4 ms took 3.0–3.5 s a process, 2 ms 1.6 s, 1 ms 1.1 s.  The 4 ms passes themselves
differed by up to 62 % in a kind's fixed cost (``reduce``: 1,164 and 1,883 ns); of the 2 ms
passes' 20 fixed costs, 17 were inside the 4 ms range or within 10 % of it (the rest:
``elementwise`` 382 ns against 469–650, ``broadcast`` 1,755 against 1,041–1,191, ``einsum``
2,754 against 3,172–4,264), and the 4-million-element rates within 14 %; at 1 ms one pass was
36 % high at 4 million elements, so not shorter."""


def _rates(ctx):
    """{detail: value}: each kind's fixed cost per call and per-element rate at each size."""
    quick = ProbeContext(repeats=3, min_sample_s=RATE_SAMPLE_S, timer=ctx.timer)
    details = {}
    for kind, calls in _kinds().items():
        times = [(e, _median(quick.time(fn, *args)) * 1e9) for e, fn, args in calls]
        small = [(e, t) for e, t in times if e <= FIXED_COST_ELEMENTS]
        slope, intercept = np.polyfit([e for e, _ in small], [t for _, t in small], 1)
        fixed = max(float(intercept), 0.0)
        details[f"{kind}_call_ns"] = fixed
        details[f"{kind}_elements"] = [float(e) for e, _ in times]
        details[f"{kind}_ns_per_element"] = [
            max((t - fixed) / e, 0.0) if e > FIXED_COST_ELEMENTS else float(max(slope, 0.0))
            for e, t in times
        ]
    details["inner_loop_ns"] = _inner_loop_ns(quick)
    x = np.full(16, 1.5)
    details["scalar_operand_ns"] = max(
        0.0,
        _median(quick.time(np.multiply, x, np.float64(2.5))) * 1e9
        - _median(quick.time(np.multiply, x, x)) * 1e9,
    )
    return details


INNER_ROWS, INNER_LENGTH = 1024, 8
"""``inner_loop_ns``: a product over 1,024 rows of 8 elements that numpy cannot join into one
loop (every row a slice of a 16-wide row) against the same 8,192 elements contiguous: all of it
in L2 on the corpus' cores."""


def _inner_loop_ns(quick):
    """ns one more start of a ufunc's inner loop costs (numpy's iterator stepping to the next
    row and calling the loop again): (rows − contiguous) / rows; never below 0."""
    wide = np.full((INNER_ROWS, 2 * INNER_LENGTH), 1.5)
    rows, out = wide[:, :INNER_LENGTH], np.empty((INNER_ROWS, INNER_LENGTH))
    flat, flat_out = np.full(INNER_ROWS * INNER_LENGTH, 1.5), np.empty(INNER_ROWS * INNER_LENGTH)
    split = _median(quick.time(np.multiply, rows, rows, out)) * 1e9
    joined = _median(quick.time(np.multiply, flat, flat, flat_out)) * 1e9
    return max(0.0, (split - joined) / INNER_ROWS)


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
    for i in range(min(map(len, times.values()))):  # rounds every size took (ctx.settle)
        slope, intercept = np.polyfit(sizes, [times[n][i] for n in SIZES], 1)
        samples.append(float(intercept) * 1e6)
        slopes.append(float(slope) * 1e9)
    slopes.sort()
    arr = np.ones((4, 4))
    load = paired_samples(ctx, _load, (arr, (1, 2)), 50_000).median
    store = paired_samples(ctx, _store, (arr, (1, 2), np.float64(1.5)), 50_000).median
    index_tuple = paired_samples(ctx, _index_tuple, (1, 2), 50_000).median
    scalars = (np.float64(1.5), np.float64(2.5))
    multiply = paired_samples(ctx, _scalar_multiply, scalars, 50_000).median
    view = paired_samples(ctx, _view, (np.ones((4, 4)), 1), 50_000).median
    index = load + index_tuple
    details = {
        "ns_per_element": slopes[len(slopes) // 2],
        "scalar_op_ns": (index + multiply) / 2,
        "scalar_index_ns": index,
        "scalar_load_ns": load,
        "scalar_store_ns": store,
        "index_tuple_ns": index_tuple,
        "scalar_multiply_ns": multiply,
        "view_ns": view,
        **_rates(ctx),
    }
    return ProbeMeasurement(samples, details)
