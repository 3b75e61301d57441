"""Model breakdown and waterfall arithmetic on fixed numbers."""

from __future__ import annotations

import math

import pytest

from overhead_tui.analysis.attribution import UnitCosts, attribute, breakdown
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.summary.records import RunSummary, ScenarioResult

PROBES = {
    "dispatch": {"value": 2.0},
    "boxing": {"value": 5.0},
    "container_access": {"value": 1.0, "details": {"store_ns": 0.5}},
    "call_overhead": {"value": 10.0, "details": {"builtin_ns": 4.0}},
    "numpy_call": {"value": 0.5, "details": {"scalar_op_ns": 40.0}},
    "simd_fma": {"value": 40.0, "details": {"one_core_gflops": 20.0}},
}


def _result(name, rung, layers, removes, n, median_s, events=None):
    return ScenarioResult(
        name=name,
        title=name,
        rung=rung,
        layers=layers,
        removes=removes,
        n=n,
        dtype="float64",
        flops=2 * n**3,
        status="ok",
        median_s=median_s,
        samples_s=[median_s],
        events_per_fma=events,
        dense_kernel="dense_kernel" in layers,
    )


PYTHON_EVENTS = {
    "dispatches": 10.0,
    "floats": 2.0,
    "python_calls": 0.0,
    "builtin_calls": 0.0,
    "numpy_calls": 0.0,
    "by_opcode": {"BINARY_SUBSCR_LIST_INT": 4.0, "STORE_SUBSCR_LIST_INT": 1.0},
}


def test_interpreted_breakdown_is_events_times_unit_costs():
    # 10 dispatches × 2 ns + 2 floats × 5 ns + 4 loads × 1 ns + 1 store × 0.5 ns = 34.5 ns
    n = 10
    fmas = n**3
    result = _result(
        "py",
        1,
        ["interpreter_dispatch", "boxing", "container_access"],
        [],
        n,
        40e-9 * fmas,
        PYTHON_EVENTS,
    )
    b = breakdown(result, UnitCosts.from_probes(PROBES))
    assert b["layers"]["interpreter_dispatch"] == pytest.approx(20 / 40)
    assert b["layers"]["boxing"] == pytest.approx(10 / 40)
    assert b["layers"]["container_access"] == pytest.approx(4.5 / 40)
    assert b["explained"] == pytest.approx(34.5 / 40)
    assert b["layers"]["other"] == pytest.approx(5.5 / 40)
    assert sum(b["layers"].values()) == pytest.approx(1.0)


def test_over_explained_rung_reports_negative_other():
    result = _result(
        "py", 1, ["interpreter_dispatch", "boxing"], [], 10, 30e-9 * 1000, PYTHON_EVENTS
    )
    b = breakdown(result, UnitCosts.from_probes(PROBES))
    assert b["explained"] > 1 and b["layers"]["other"] < 0


def test_compiled_rung_gets_peak_time_and_labelled_rest():
    # 1 ns per FMA on one core at a 20 GFLOP/s peak: 0.1 ns compute, 0.9 ns memory
    result = _result(
        "jit",
        9,
        ["simd_compute", "memory"],
        [],
        100,
        1e-9 * 100**3,
        {"dispatches": 0.0, "by_opcode": {}},
    )
    b = breakdown(result, UnitCosts.from_probes(PROBES))
    assert b["layers"]["simd_compute"] == pytest.approx(0.1)
    assert b["layers"]["memory"] == pytest.approx(0.9)
    assert "interpreter_dispatch" not in b["layers"]
    assert b["explained"] == pytest.approx(0.1)  # the model itself: compute at peak
    assert b["labelled_rest"] == pytest.approx(0.9)  # the rest, labelled by what it carries


def test_waterfall_credits_removed_layers_and_multiplies_to_the_span():
    summary = RunSummary(
        scenarios=[
            _result("a", 1, ["interpreter_dispatch", "boxing"], [], 10, 8e-3),
            _result("b", 2, ["interpreter_dispatch"], ["boxing"], 20, 8e-3),  # 8× less per flop
            _result("c", 3, ["dense_kernel"], ["interpreter_dispatch"], 40, 1e-3),
        ]
    )
    attribute(summary, PROBES)
    steps = summary.waterfall
    assert [(s["from"], s["to"]) for s in steps] == [("a", "b"), ("b", "c")]
    assert steps[0]["speedup"] == pytest.approx(8.0)
    assert steps[1]["speedup"] == pytest.approx(64.0)
    t_a = 8e-3 / (2 * 10**3)
    t_b = t_a / 8
    assert steps[0]["layers"] == {"boxing": pytest.approx(t_a - t_b)}
    span = (8e-3 / 2000) / (1e-3 / (2 * 40**3))
    assert math.prod(s["speedup"] for s in steps) == pytest.approx(span, rel=1e-12)


def test_waterfall_skips_failed_rungs_and_credits_other_when_nothing_is_removed():
    summary = RunSummary(
        scenarios=[
            _result("a", 1, ["boxing"], [], 10, 2e-3),
            _result("b", 2, ["boxing"], [], 10, 1e-3),
        ]
    )
    summary.scenarios.insert(1, _result("x", 2, [], [], 10, 1.0))
    summary.scenarios[1].status = "invalid"
    steps = waterfall(summary)
    assert len(steps) == 1 and set(steps[0]["layers"]) == {"other"}
