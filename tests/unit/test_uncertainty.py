"""Intervals: probe ranges, propagation through the model on fixed numbers, old summaries."""

from __future__ import annotations

import json

import pytest

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.attribution import attribute, breakdown
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.summary.breakdown import Breakdown
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.measured import EventsPerFma
from overhead_tui.summary.probes import probe_records
from overhead_tui.summary.profile import backend_from_json
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.worker.counting.opcodes import count_events
from tests.conftest import FIXTURES, scenario_result

# per-process values: dispatch 1.5-2.5 around 2, boxing 4-6 around 5, no others
PROBES = {
    "dispatch": {"value": 2.0, "samples": [1.5, 2.0, 2.5]},
    "boxing": {"value": 5.0, "samples": [4.0, 5.0, 6.0]},
    "call_overhead": {
        "value": 10.0,
        "samples": [9.0, 10.0, 11.0],
        "details": {"builtin_ns": -2.59},
        "detail_intervals": {"builtin_ns": [-4.0, 1.0]},
    },
}
EVENTS = {"dispatches": 10.0, "floats": 2.0, "by_opcode": {}}


def _result(median_ns: float, iqr_ns: float, events=EVENTS, reference=None) -> ScenarioResult:
    return scenario_result(
        "py",
        layers=["interpreter_dispatch", "boxing"],
        ns_per_fma=median_ns,
        iqr_ns=iqr_ns,
        events_per_fma=from_json(EventsPerFma, events) if events else None,
        reference_dispatch_ns=reference or [],
    )


def test_probe_interval_is_the_range_of_the_process_values():
    assert unc.probe_interval([3.0, 1.0, 2.0]) == (1.0, 3.0)
    assert unc.probe_interval([], None) is None
    assert unc.probe_interval([1.0, 2.0], 5.0) == (1.0, 5.0)  # widened to hold the value
    assert unc.median_coverage(3) == pytest.approx(0.75)
    assert unc.median_coverage(7) == pytest.approx(1 - 2 / 128)


def test_propagation_on_fixed_numbers():
    # measured 40 ± 4 ns (IQR 8 ns): [36, 44]
    # dispatch 10 × [1.5, 2.5] = [15, 25] ns; boxing 2 × [4, 6] = [8, 12] ns
    costs = UnitCosts.from_probes(probe_records(PROBES))
    b = breakdown(_result(40.0, 8.0), costs)
    assert b.measured_interval == pytest.approx([36.0, 44.0])
    assert b.intervals["interpreter_dispatch"] == pytest.approx([15 / 44, 25 / 36])
    assert b.intervals["boxing"] == pytest.approx([8 / 44, 12 / 36])
    assert b.explained == pytest.approx(30 / 40)
    assert b.explained_interval == pytest.approx([23 / 44, 37 / 36])
    assert b.intervals["other"] == pytest.approx([1 - 37 / 36, 1 - 23 / 44])
    for layer, share in b.layers.items():
        assert unc.contains(b.intervals[layer], share), layer
    assert unc.contains(b.explained_interval, b.explained)


def test_a_negative_unit_cost_is_zero_and_below_resolution():
    costs = UnitCosts.from_probes(probe_records(PROBES))
    assert costs.builtin_ns == 0.0
    assert "builtin_ns" in costs.below_resolution
    assert costs.interval("builtin_ns") == (0.0, 1.0)
    events = {**EVENTS, "builtin_calls": 1.0, "numpy_calls": 0.0}
    b = breakdown(_result(40.0, 8.0, events), costs)
    row = next(r for r in b.rows if r.unit == "ns/builtin call")
    assert row.below_resolution is True
    assert row.unit_cost == 0.0
    assert row.unit_interval == (0.0, 1.0)


def test_the_rungs_own_dispatch_timing_scales_the_probe_costs():
    # the worker ran the reference loop at 3 ns/dispatch (2.7-3.3): × 1.5 (1.35-1.65)
    costs = UnitCosts.from_probes(probe_records(PROBES))
    b = breakdown(_result(60.0, 0.0, reference=[2.7, 3.0, 3.3]), costs)
    assert b.scale.factor == pytest.approx(1.5)
    assert b.scale.interval == pytest.approx([1.35, 1.65])
    # dispatch 10 × 3 = 30 ns, boxing 2 × 7.5 = 15 ns, of 60
    assert b.layers["interpreter_dispatch"] == pytest.approx(0.5)
    assert b.layers["boxing"] == pytest.approx(0.25)
    assert b.intervals["interpreter_dispatch"] == pytest.approx([15 * 1.35 / 60, 25 * 1.65 / 60])
    assert unc.contains(b.explained_interval, b.explained)


def test_waterfall_marks_steps_within_the_noise():
    def rung(name, index, median_s, iqr_s):
        return scenario_result(
            name,
            rung=index,
            layers=["interpreter_dispatch"],
            removes=["interpreter_dispatch"] if index else [],
            status="ok",
            median_s=median_s,
            iqr_s=iqr_s,
            samples_s=[median_s],
        )

    steps = waterfall(
        RunSummary(
            scenarios=[rung("a", 0, 1.0, 0.2), rung("b", 1, 0.95, 0.2), rung("c", 2, 0.1, 0)]
        )
    )
    assert steps[0].within_noise is True
    assert steps[0].speedup_interval == pytest.approx([0.9 / 1.05, 1.1 / 0.85])
    assert steps[1].within_noise is False
    assert unc.contains(steps[1].speedup_interval, steps[1].speedup)


def test_a_summary_without_intervals_still_opens_and_renders():
    from overhead_tui.export.markdown import MarkdownExporter

    data = json.loads((FIXTURES / "recorded_summary.json").read_text(encoding="utf-8"))
    for s in data["scenarios"]:
        if s.get("breakdown"):
            s["breakdown"].pop("intervals", None)
            s["breakdown"].pop("explained_interval", None)
        s.pop("reference_dispatch_ns", None)
    for step in data.get("waterfall", []):
        step.pop("within_noise", None)
        step.pop("speedup_interval", None)
    summary = RunSummary.from_json(data)
    assert any(r.breakdown for r in summary.scenarios)
    text = MarkdownExporter().render(summary)
    assert "## Breakdown" in text


def test_a_summary_with_intervals_round_trips():
    data = json.loads((FIXTURES / "recorded_summary.json").read_text(encoding="utf-8"))
    summary = RunSummary.from_json(data)
    attribute(summary, summary.probes)
    assert any(r.breakdown and r.breakdown.intervals for r in summary.scenarios)
    again = RunSummary.from_json(json.loads(summary.dumps()))
    for before, after in zip(summary.scenarios, again.scenarios, strict=True):
        assert (before.breakdown and before.breakdown.intervals) == (
            after.breakdown and after.breakdown.intervals
        )


def test_array_reads_create_floats_in_the_counts():
    from array import array

    def kernel(a, b, n):
        s = 0.0
        for j in range(n):
            s += a[j] * b[j]
        return s

    counts = count_events(kernel, (array("d", [1.0] * 50), [2.0] * 50, 50))
    assert counts.array_loads == 50  # a[j]; b[j] is a list subscript
    assert counts.array_stores == 0
    # a[j] creates one, the multiply one, the add one
    assert counts.floats == 150


def test_numpy_scalar_ops_are_counted():
    np = pytest.importorskip("numpy")

    def kernel(a, n):
        s = a[0] * 0
        for j in range(n):
            s = s + a[j]
        return s

    counts = count_events(kernel, (np.ones(20), 20))
    assert counts.numpy_scalars >= 40  # 20 subscripts and 20 additions on numpy scalars
    assert counts.array_loads == 0


def test_agreement_side_by_side_with_verdicts():
    from overhead_tui.analysis.agreement import agreement

    b = Breakdown(
        layers={"interpreter_dispatch": 0.5, "container_access": 0.2, "boxing": 0.1},
        intervals={
            "interpreter_dispatch": (0.4, 0.6),
            "container_access": (0.1, 0.3),
            "boxing": (0.08, 0.12),
        },
    )
    perf = {
        "status": "ok",
        "samples": "10000",
        "layers": {"interpreter_dispatch": 0.72, "boxing": 0.3},
    }
    found = agreement(b, backend_from_json("perf", perf)).layers
    assert found["container_access"].verdict == "not separable"
    assert found["interpreter_dispatch"].verdict == "not separable"
    merged = found["interpreter_dispatch+container_access"]
    assert merged.model_interval == pytest.approx([0.5, 0.9])
    assert merged.verdict == "agree"
    assert found["boxing"].verdict == "disagree"  # 0.3 ± 0.009 against [0.08, 0.12]
    assert found["boxing"].perf_interval == pytest.approx(
        [0.3 - 2 * (0.21 / 10000) ** 0.5, 0.3 + 2 * (0.21 / 10000) ** 0.5]
    )
