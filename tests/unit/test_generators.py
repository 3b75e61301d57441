"""Generators started (``Counters.generators``) and function objects made (``MAKE_FUNCTION``):
counted exactly on every supported CPython, priced at the ``call_overhead`` probe's
``generator_ns`` and ``function_ns``, not as Python calls."""

from __future__ import annotations

import pytest

from overhead_tui.analysis.attribution import interpreted_rows
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.measured import EventsPerFma
from tests.unit.test_counting_versions import run_under

SCRIPT = r"""
import json, sys
from overhead_tui.worker.counting.opcodes import count_events

def gf(xs):
    for x in xs:
        yield x

def k_gen(xs): return sum(x for x in xs)                      # 1 generator
def k_rows(xs): return [sum(y for y in xs) for _ in xs]       # 5 generators
def k_genfn(xs): return [list(gf(xs)) for _ in range(3)]      # 3, no function made per row
def k_abandon(xs): return [next(gf(xs)) for _ in range(4)]    # 4 started, none finished
def k_lambda(xs): return [(lambda: x)() for x in xs]          # 5 functions made, no generator
def k_plain(xs): return [x for x in xs]                       # none

xs = [1.0, 2.0, 3.0, 4.0, 5.0]
out = {"version": list(sys.version_info[:2])}
for fn in (k_gen, k_rows, k_genfn, k_abandon, k_lambda, k_plain):
    events = count_events(fn, (xs,), warmups=20, sites=True)
    out[fn.__name__] = [events.generators, events.by_opcode.get("MAKE_FUNCTION", 0)]
print(json.dumps(out))
"""


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_generators_started_and_functions_made_are_counted_exactly(version):
    counts = run_under(version, SCRIPT)
    comprehension = 1 if version == "3.11" else 0  # 3.12 inlines list comprehensions
    assert counts["k_gen"] == [1, 1]
    assert counts["k_rows"] == [5, 5 + comprehension]
    assert counts["k_genfn"] == [3, comprehension]
    assert counts["k_abandon"] == [4, comprehension]
    assert counts["k_lambda"] == [0, 5 + comprehension]
    assert counts["k_plain"] == [0, comprehension]


def test_a_generator_started_is_priced_at_its_probe_and_a_function_made_too():
    costs = UnitCosts(
        dispatch_ns=3.0, call_ns=15.0, generator_item_ns=30.0, generator_ns=80.0, function_ns=50.0
    )
    events = EventsPerFma(
        dispatches=10.0,
        python_calls=5.0,  # 1 generator started + 3 resumptions + 1 call
        generators=1.0,
        by_opcode={"YIELD_VALUE": 3.0, "MAKE_FUNCTION": 2.0},
    )
    rows = {r.unit_cost: r.events_per_fma for r in interpreted_rows(events, costs)}
    assert rows[80.0] == 1.0 and rows[30.0] == 3.0 and rows[15.0] == 1.0 and rows[50.0] == 2.0
    # without the probe's details (an older cache) a start is a call and nothing prices a
    # function made beyond its dispatch, as before
    old = UnitCosts(dispatch_ns=3.0, call_ns=15.0, generator_item_ns=30.0)
    rows = {r.unit_cost: r.events_per_fma for r in interpreted_rows(events, old)}
    assert rows[15.0] == 2.0 and 80.0 not in rows and 50.0 not in rows
