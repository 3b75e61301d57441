"""ns per Python function call and per builtin call, beyond dispatching their bytecodes.

`f()` on an empty function and `len(lst)`, each timed against the reference loop `y = x is z`,
minus the extra dispatches (the call's and the callee's instructions, counted exactly) at the
reference loop's ns per dispatch: what remains is frame set-up and tear-down (or the C call
protocol of a builtin).

``generator_item_ns``: one item a builtin reducer pulls from a generator expression over `zip`
of two lists of distinct float objects, the ladder's data layout (`sum(x for x, _ in zip(xs,
ys))`), beyond the generator's own dispatches: the generator frame's resumption and suspension,
one `zip` step (a reused tuple, two list iterator steps) and one `sum` step on a float.  Each
generator resumption in a rung (a ``YIELD_VALUE``) is priced at it.

``c_call_item_ns``: one item of a builtin-driven loop that runs entirely in C, `sum(map(f,
xs))` with `f` a builtin (``operator.pos``, which returns its float unchanged: no object is
made): one list-iterator step, `map` calling a C function through vectorcall, one `sum` step on
a float.  Each builtin function a builtin calls from C in a rung (``c_calls``) is priced at it;
the float an arithmetic builtin such as ``operator.mul`` makes there is priced apart (the
``boxing`` probe's ``c_api_float_ns``).

``c_entry_item_ns``: the same loop with ``f`` a Python function that returns its float
(``_same``), beyond that function's own dispatches: one list-iterator step, `map` calling a
Python function from C (the frame entered through a fresh eval-loop entry, not pushed inline
as a Python call's is), one `sum` step.  Each Python frame a rung enters from C (a lambda
``map`` or ``sorted`` calls, a dunder method a slot calls: ``c_entries``) is priced at it.

``function_ns``: ``f = lambda: None``, a function object made and freed (``MAKE_FUNCTION``),
beyond its dispatches.  Each ``MAKE_FUNCTION`` a rung executes (a lambda or nested ``def`` in
its loop; before 3.12, every list, set and dict comprehension) is priced at it.

``generator_ns``: ``for _ in g(): pass`` on a generator function that returns at once: the
call that makes the generator object, its frame's first entry by ``FOR_ITER``, its return
and the object's release, beyond their dispatches.  Each generator a rung starts
(``Counters.generators``: a generator expression, a generator function's call) is priced at
it instead of a Python call; its later resumptions are items (``generator_item_ns``).
"""

import operator
import random
from itertools import repeat

from overhead_tui.api import ProbeMeasurement, paired_samples

NAME = "call_overhead"
TITLE = "function calls"
UNIT = "ns/call"
LAYER = "call_overhead"
TRIPS = 100_000


def _empty():
    return None


def _calls(n, f):
    for _ in repeat(None, n):
        f()


def _builtin_calls(n, lst):
    for _ in repeat(None, n):
        len(lst)


_PAIRS = {}
"""n -> the two lists of n floats ``_generator_items`` zips (built once, outside the timing)."""


def _generator_items(n, floats):
    # two lists of n distinct floats, cut once per n from `floats` (at least 2 n long)
    xs, ys = _PAIRS.get(n) or _PAIRS.setdefault(n, (floats[:n], floats[n : 2 * n]))
    return sum(x for x, _ in zip(xs, ys, strict=True))


def _c_call_items(n, floats):
    return sum(map(operator.pos, floats[:n] if len(floats) != n else floats))


def _same(x):
    return x


def _c_entry_items(n, floats):
    return sum(map(_same, floats[:n] if len(floats) != n else floats))


def _functions(n):
    for _ in repeat(None, n):
        _ = lambda: None  # noqa: E731 (the object made and freed is what is timed)


def _finished():
    return
    yield


def _generators(n, g):
    for _ in repeat(None, n):
        for _ in g():
            pass


def _nothing(n, x, z):
    return None


def measure(ctx):
    calls = paired_samples(ctx, _calls, (_empty,), TRIPS)
    builtins = paired_samples(ctx, _builtin_calls, ([1, 2, 3],), TRIPS)
    rng = random.Random(0)
    floats = [rng.random() for _ in range(2 * TRIPS)]
    items = paired_samples(ctx, _generator_items, (floats,), TRIPS)
    c_items = paired_samples(ctx, _c_call_items, (floats[:TRIPS],), TRIPS, baseline=_nothing)
    entries = paired_samples(ctx, _c_entry_items, (floats[:TRIPS],), TRIPS, baseline=_nothing)
    functions = paired_samples(ctx, _functions, (), TRIPS)
    generators = paired_samples(ctx, _generators, (_finished,), TRIPS)
    details = {
        "builtin_ns": builtins.median,
        "c_entry_item_ns": entries.median,
        "generator_item_ns": items.median,
        "c_call_item_ns": c_items.median,
        "function_ns": functions.median,
        "generator_ns": generators.median,
        **calls.details,
    }
    return ProbeMeasurement(calls.samples, details, calls.estimate)
