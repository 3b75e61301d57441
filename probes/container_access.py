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

Compiled code pays another price for the same subscript: mypyc's `y = a[i][k]` on
`list[list[float]]` is an out-of-line C-API call per level (`CPyList_GetItem`: tag, bounds
and type checks, a reference count up and down) and a `PyFloat_AsDouble` to unbox the float.
`c_api_load_ns` is one such subscript in a mypyc-compiled loop over the same 128 × 128 lists
(two loads of each kind per trip, as in a matrix-multiply inner loop), the loop's own
instructions included (a loop without the subscripts compiles to nothing to subtract); absent
where mypyc (it ships with mypy) or a C compiler is not there, or the build fails (the
reason is kept as `c_api_missing`).

`list_append_ns`: an item a list comprehension appends (`LIST_APPEND`) to a fresh list of
`APPENDED` distinct floats, the list's growth and its release (each item's reference
dropped) included, beyond the comprehension's dispatches (before 3.12 its function object and
frame, a few ns an item at this length, are in it too).  Each `LIST_APPEND` a rung executes is
priced at it: 3.11 ran `[a[i][k] * b[k][j] for k in range(n)]` about 20 ns an item slower than
the same loop summing into a float (2026-12-07, Zen 3).
"""

import random
from array import array
from itertools import repeat

from overhead_tui.api import (
    BuildError,
    ProbeMeasurement,
    Unavailable,
    baseline_loop,
    build_of,
    compile_python,
    paired_samples,
)

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


APPENDED = 64
"""Items of the lists the `list_append_ns` loop builds (a row of the corpus's n = 64)."""


def _appended(n, items):
    for _ in repeat(None, n):
        x = [v for v in items]  # noqa: C416 (the comprehension's LIST_APPEND is what is timed)
    return x


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


C_API_SOURCE = f"""
def loads(reps: int, a: list[list[float]], b: list[list[float]]) -> float:
    i = 1
    j = 2
    y = 0.0
    z = 0.0
    for _ in range(reps):
        for k in range({ORDER}):
            y = a[i][k]
            z = b[k][j]
    return y + z
"""
"""The mypyc-compiled analogue: four list subscripts per trip (``a[i]``, ``[k]``, ``b[k]``,
``[j]``), two of them unboxing a float, as mypyc compiles ``a[i][k] * b[k][j]``."""
C_API_LOADS_PER_TRIP = 4


def prepare():
    """Build the mypyc module ``measure`` times (a run builds it before anything is timed)."""
    compile_python(NAME, C_API_SOURCE, "mypyc")


def _c_api_samples(ctx, a, b):
    """ns per subscript of the mypyc-compiled analogue, one per timed sample; [] (and why)
    where it cannot be built."""
    try:
        compiled = compile_python(NAME, C_API_SOURCE, "mypyc")
    except (Unavailable, BuildError) as exc:  # the probe's other figures stand without it
        return [], str(exc).splitlines()[0]
    loads = REPS * ORDER * C_API_LOADS_PER_TRIP
    return sorted(t / loads * 1e9 for t in ctx.time(compiled.loads, REPS, a, b)), ""


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
    stores = paired_samples(ctx, _store, ([0.5] * 8,), TRIPS)
    array_loads = paired_samples(ctx, _array_load, (array("d", [0.5] * 8),), TRIPS)
    array_stores = paired_samples(ctx, _store, (array("d", [0.5] * 8),), TRIPS)
    floats = [rng.random() for _ in range(APPENDED)]
    appended = (
        ctx.count(_appended, 4, floats).dispatches - ctx.count(_appended, 2, floats).dispatches
    ) / 2
    appends = []
    lists = TRIPS // APPENDED
    for t_lists, t_tight in ctx.time_pair(
        lambda: _appended(lists, floats), lambda: baseline_loop(TRIPS, 1.5, 2.5)
    ):
        ns_per_dispatch = t_tight / (TRIPS * tight_per_trip) * 1e9
        appends.append((t_lists / lists * 1e9 - appended * ns_per_dispatch) / APPENDED)
    c_api, c_api_missing = _c_api_samples(ctx, a, b)
    compiled = (
        {
            "c_api_load_ns": c_api[len(c_api) // 2],
            "c_api_build": build_of(NAME).compiler_version,
        }
        if c_api
        else {"c_api_missing": c_api_missing}
    )
    details = {
        "store_ns": stores.median,
        "array_load_ns": array_loads.median,
        "array_store_ns": array_stores.median,
        "list_append_ns": sorted(appends)[len(appends) // 2],
        "loads_per_rep": loads,
        "dispatches_per_rep": dispatches,
        **compiled,
    }
    return ProbeMeasurement(samples, details)
