"""An item a comprehension appends (``LIST_APPEND``): its list's growth and release, priced
at the ``container_access`` probe's ``list_append_ns`` beyond its dispatch."""

from __future__ import annotations

import math
import sys

from overhead_tui.analysis.attribution import interpreted_rows
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.measured import EventsPerFma


def test_an_item_a_comprehension_appends_is_priced_at_its_probe():
    events = EventsPerFma(dispatches=8.0, by_opcode={"LIST_APPEND": 1.0})
    costs = UnitCosts(dispatch_ns=3.0, list_append_ns=5.0)
    rows = {r.unit_cost: r.events_per_fma for r in interpreted_rows(events, costs)}
    assert rows[5.0] == 1.0
    # an older cache without the detail: the append is its dispatch only, as before
    assert 5.0 not in {r.unit_cost for r in interpreted_rows(events, UnitCosts(dispatch_ns=3.0))}


def test_the_container_probe_measures_an_appended_item():
    """The real probe in a worker: its detail is there and a number (its size is the
    benchmark's)."""
    from overhead_tui.engine.probe_runs import measure_probe
    from overhead_tui.plugins.probes import discover_probes

    spec = {s.name: s for s in discover_probes()}["container_access"]
    probe = measure_probe(spec, sys.executable, processes=1, repeats=3, min_sample_s=0.005)
    assert probe.error is None
    assert math.isfinite(probe.details["list_append_ns"])
    assert UnitCosts.from_probes({"container_access": probe}).list_append_ns is not None
