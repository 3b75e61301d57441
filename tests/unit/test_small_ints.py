"""Int results against CPython's small-int cache (``worker.counting.small_ints``): the cache's
bounds checked by object identity on each interpreter, the results counted exactly, carried
to the timed n, and only those outside the cache priced as new objects."""

from __future__ import annotations

import pytest

from overhead_tui.analysis.attribution import interpreted_rows
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.measured import EventsPerFma
from overhead_tui.worker.counting.small_ints import SMALL_INTS, made_share
from tests.unit.test_counting_versions import run_under

KERNELS = """
def k_index(n):
    t = 0
    for i in range(n):
        for k in range(n):
            t = i * n + k        # i * n: 0..380; + k: 0..399
    return t

def k_counter(xs):
    k = 0
    for x in xs:
        k += 1                   # 1..300: 44 beyond 256
    return k

def k_float(xs):
    s = 0.0
    for x in xs:
        s = s * 1.0 + x          # floats: not int results
    return s
"""

SCRIPT = r"""
import importlib.util, json, os, sys, tempfile
from overhead_tui.worker.counting.opcodes import count_events

# the kernels in a file of their own: their expressions are found by their source
folder = tempfile.mkdtemp()
path = os.path.join(folder, "kernels.py")
with open(path, "w") as f:
    f.write(KERNELS)
spec = importlib.util.spec_from_file_location("kernels", path)
k = importlib.util.module_from_spec(spec)
spec.loader.exec_module(k)

xs = [1.0] * 300
out = {"version": list(sys.version_info[:2])}
out["cache"] = [int("-5") is int("-5"), int("-6") is int("-6"),
                int("256") is int("256"), int("257") is int("257")]
for fn, arg in ((k.k_index, 20), (k.k_counter, xs), (k.k_float, xs)):
    events = count_events(fn, (arg,), warmups=20)
    out[fn.__name__] = sorted(events.int_results.values())
print(json.dumps(out))
""".replace("KERNELS", repr(KERNELS))


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_the_cache_bounds_hold_and_int_results_are_counted_exactly(version):
    found = run_under(version, SCRIPT)
    assert SMALL_INTS == (-5, 256) and found["cache"] == [True, False, True, False]
    assert found["k_index"] == [[400, 140, 380], [400, 143, 399]]
    assert found["k_counter"] == [[300, 44, 300]]
    assert found["k_float"] == []


def test_results_are_carried_to_n_as_the_power_of_n_they_grow_with():
    sizes = [8, 12, 16, 20]
    counter = [{("k", 1): (s, 0, s)} for s in sizes]  # up to n: spread evenly
    index = [{("k", 2): (s, s * s // 2, s * s - 1)} for s in sizes]  # up to n²
    assert made_share(sizes, counter, 20, 64) == 0.0  # never beyond 256 at n = 64
    assert made_share(sizes, counter, 20, 512) == pytest.approx(0.5)
    top = 399 * (64 / 20) ** 2
    assert made_share(sizes, index, 20, 64) == pytest.approx(1 - 256 / top, rel=0.01)
    # an instruction that could not be evaluated again makes an object each time
    assert made_share(sizes, counter, 40, 64) == pytest.approx(0.5)
    assert made_share(sizes, [{}] * 4, 20, 64) == 1.0
    # counted at n itself: what was seen
    assert made_share([64], [{("k", 1): (100, 25, 300)}], 100, 64) == 0.25


def test_only_int_results_outside_the_cache_are_priced_as_objects():
    costs = UnitCosts(dispatch_ns=3.0, int_ns=10.0)
    ops = {"BINARY_OP_ADD_INT": 2.0}
    cached = EventsPerFma(dispatches=5.0, by_opcode=ops, int_made_share=0.25)
    older = EventsPerFma(dispatches=5.0, by_opcode=ops)
    assert {r.unit_cost: r.events_per_fma for r in interpreted_rows(cached, costs)}[10.0] == 0.5
    assert {r.unit_cost: r.events_per_fma for r in interpreted_rows(older, costs)}[10.0] == 2.0
