"""Python frames entered from C (``Counters.c_entries``): counted exactly on every supported
CPython, told apart from inlined Python calls, priced by the ``call_overhead`` probe's
``c_entry_item_ns``."""

from __future__ import annotations

import math
import sys

import pytest

from overhead_tui.analysis.attribution import interpreted_rows
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.measured import EventsPerFma
from tests.unit.test_counting_versions import run_under

SCRIPT = r"""
import functools, json, sys
from overhead_tui.worker.counting.opcodes import count_events

class V:
    def __init__(self, x):
        self.x = x
    def __add__(self, other):
        return V(self.x + other.x)

def same(x):
    return x

def k_map(xs): return list(map(lambda x: x, xs))            # a type drains map: 5 from C
def k_sum_map(xs): return sum(map(same, xs))                 # a builtin drives map: 5
def k_sorted(xs): return sorted(xs, key=lambda x: -x)        # a key function: 5
def k_reduce(xs): return functools.reduce(lambda a, b: a + b, xs)  # 4 pairs
def k_calls(xs): return [same(x) for x in xs]                # inlined Python calls: 0
def k_gen(xs): return sum(x for x in xs)                     # resumptions: priced apart, 0
def k_slot(xs):
    total = V(0.0)
    for x in xs:
        total = total + V(x)   # __add__ through BINARY_OP's slot: 5
    return total
def k_star(xs): return [same(*(x,)) for x in xs]             # CALL_FUNCTION_EX

xs = [1.0, 2.0, 3.0, 4.0, 5.0]
out = {"version": list(sys.version_info[:2])}
for fn in (k_map, k_sum_map, k_sorted, k_reduce, k_calls, k_gen, k_slot, k_star):
    events = count_events(fn, (xs,), warmups=20, sites=True)
    out[fn.__name__] = [events.c_entries, events.python_calls]
print(json.dumps(out))
"""


def _counts(version: str) -> dict:
    return run_under(version, SCRIPT)


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_frames_entered_from_c_are_counted_exactly(version):
    counts = _counts(version)
    from_c = {name: entries for name, (entries, _calls) in counts.items() if name != "version"}
    assert from_c["k_map"] == from_c["k_sum_map"] == from_c["k_sorted"] == 5
    assert from_c["k_reduce"] == 4
    assert from_c["k_calls"] == 0 and from_c["k_gen"] == 0
    # 5 __add__ from the slot on every version; the 11 __init__ (V(0.0), each V(x), each sum)
    # from the type call until 3.13 pushes them inline (CALL_ALLOC_AND_ENTER_INIT)
    assert from_c["k_slot"] == (5 if version == "3.13" else 5 + 11)
    # f(*args) re-enters the eval loop from C on 3.11 only (a deep recursion through it
    # overflows the C stack there)
    assert from_c["k_star"] == (5 if version == "3.11" else 0)
    for name, (entries, calls) in counts.items():
        if name != "version":
            assert entries <= calls, name


def _events(**counts: float) -> EventsPerFma:
    return EventsPerFma(dispatches=10.0, **counts)


def test_a_frame_entered_from_c_is_priced_at_its_own_probe_not_as_a_python_call():
    costs = UnitCosts(dispatch_ns=3.0, call_ns=15.0, c_entry_item_ns=50.0)
    rows = {r.unit_cost: r.events_per_fma for r in interpreted_rows(
        _events(python_calls=3.0, c_entries=2.0), costs)}  # fmt: skip
    assert rows[50.0] == 2.0 and rows[15.0] == 1.0
    # without the probe's detail (an older cache) every frame is a call, as before
    old = UnitCosts(dispatch_ns=3.0, call_ns=15.0)
    rows = {r.unit_cost: r.events_per_fma for r in interpreted_rows(
        _events(python_calls=3.0, c_entries=2.0), old)}  # fmt: skip
    assert rows[15.0] == 3.0


def test_the_call_probe_measures_a_frame_entered_from_c():
    """The real probe in a worker: its detail is there and a number (its size is the
    benchmark's)."""
    from overhead_tui.engine.probe_runs import measure_probe
    from overhead_tui.plugins.probes import discover_probes

    spec = {s.name: s for s in discover_probes()}["call_overhead"]
    probe = measure_probe(spec, sys.executable, processes=1, repeats=3, min_sample_s=0.005)
    assert probe.error is None
    for detail in ("c_entry_item_ns", "function_ns", "generator_ns"):
        assert math.isfinite(probe.details[detail]), detail
    costs = UnitCosts.from_probes({"call_overhead": probe})
    assert None not in (costs.c_entry_item_ns, costs.function_ns, costs.generator_ns)
