"""ns per list subscript load and store, beyond dispatching the instruction.

Loads are measured where they matter, in a non-allocating analogue of a pure-Python
matrix-multiply inner loop: range iteration over cached small ints and `s = a[i][k] is
b[k][j]` over 128 × 128 lists of distinct float objects (the ladder's data layout, so the
subscripts' memory accesses are included).  Per trip, the time minus the exactly counted
dispatches at the tight-loop ns per dispatch (timed interleaved), divided by the counted list
subscripts, is the cost of one subscript load.  Stores (`lst[k] = y`) are timed against the
tight loop `y = x is z` in the same way.  `array.array` reads and writes (`y = arr[k]`,
`arr[k] = y` on typecode 'd': unspecialised subscripts, the read creating a float) are timed
against the same tight loop: `array_load_ns` includes the float the read creates.
"""

import random
from array import array
from itertools import repeat

from overhead_tui.api import baseline_loop, paired_samples

NAME = "container_access"
TITLE = "list subscripts"
UNIT = "ns/load"
LAYER = "container_access"
ORDER = 128
REPS = 2000
TRIPS = 200_000


def _analogue(reps, a, b):
    i = 1
    j = 2
    s = None
    for _ in repeat(None, reps):
        for k in range(ORDER):
            s = a[i][k] is b[k][j]
    return s


def _store(n, lst):
    k = 1
    y = 0.5
    for _ in repeat(None, n):
        lst[k] = y
    return y


def _array_load(n, arr):
    k = 1
    y = None
    for _ in repeat(None, n):
        y = arr[k]
    return y


def measure(ctx):
    rng = random.Random(0)
    a = [[rng.random() for _ in range(ORDER)] for _ in range(ORDER)]
    b = [[rng.random() for _ in range(ORDER)] for _ in range(ORDER)]
    two, four = ctx.count(_analogue, 2, a, b), ctx.count(_analogue, 4, a, b)
    if two.floats:
        raise RuntimeError("the analogue loop allocates floats")
    dispatches = (four.dispatches - two.dispatches) / 2
    loads = (
        four.by_opcode.get("BINARY_SUBSCR_LIST_INT", 0)
        - two.by_opcode.get("BINARY_SUBSCR_LIST_INT", 0)
    ) / 2
    tight = ctx.count(baseline_loop, 2000, 1.5, 2.5).dispatches
    tight_per_trip = (tight - ctx.count(baseline_loop, 1000, 1.5, 2.5).dispatches) / 1000
    pairs = ctx.time_pair(lambda: _analogue(REPS, a, b), lambda: baseline_loop(TRIPS, 1.5, 2.5))
    samples = []
    for t_analogue, t_tight in pairs:
        ns_per_dispatch = t_tight / (TRIPS * tight_per_trip) * 1e9
        per_rep_ns = t_analogue / REPS * 1e9
        samples.append((per_rep_ns - dispatches * ns_per_dispatch) / loads)
    stores, _ = paired_samples(ctx, _store, ([0.5] * 8,), TRIPS)
    stores.sort()
    array_loads, _ = paired_samples(ctx, _array_load, (array("d", [0.5] * 8),), TRIPS)
    array_stores, _ = paired_samples(ctx, _store, (array("d", [0.5] * 8),), TRIPS)
    array_loads.sort()
    array_stores.sort()
    return {
        "samples": samples,
        "details": {
            "store_ns": stores[len(stores) // 2],
            "array_load_ns": array_loads[len(array_loads) // 2],
            "array_store_ns": array_stores[len(array_stores) // 2],
            "loads_per_rep": loads,
            "dispatches_per_rep": dispatches,
        },
    }
