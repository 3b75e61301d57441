"""Size sweeps: --sizes parsing, the budget's prediction and early stop, the table."""

from __future__ import annotations

import argparse

import pytest

from overhead_tui.commands.sweep import parse_sizes, render_sweep_table
from overhead_tui.engine.sweep import (
    PointCost,
    budget_allows,
    fair_share_s,
    point_cell,
    point_overhead_s,
    predict_point_s,
    sweep_rows,
    timed_calls,
)
from overhead_tui.model import RunSummary, ScenarioResult, Settings


@pytest.mark.parametrize(
    ("text", "sizes"),
    [("8,16,32", (8, 16, 32)), ("64, 8 ,16", (8, 16, 64)), ("16,16,8", (8, 16)), ("5", (5,))],
)
def test_sizes_parse_sorted_and_distinct(text, sizes):
    assert parse_sizes(text) == sizes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no sizes given"),
        ("8,,16", "empty item"),
        ("8,abc", "'abc' is not a whole number"),
        ("8,0", "0 is below 1"),
        ("8,-4", "-4 is below 1"),
        ("8.5", "'8.5' is not a whole number"),
    ],
)
def test_bad_sizes_are_one_line_errors(text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message) as info:
        parse_sizes(text)
    assert "\n" not in str(info.value)


def test_timed_calls_follow_the_calibration():
    # a 1 ms call with 20 ms samples: 20 calls per sample, 5 samples + 1 warm-up, 2 single calls
    assert timed_calls(1e-3, repeats=5, min_sample_s=0.02) == 2 + 6 * 20
    # a call longer than a sample: one call per sample
    assert timed_calls(2.0, repeats=5, min_sample_s=0.02) == 2 + 6


def test_prediction_scales_time_per_call_as_n_cubed():
    last = PointCost(n=128, median_s=0.1, overhead_s=0.5)
    # n doubles: 0.8 s per call, one call per sample -> 8 calls + the overhead
    assert predict_point_s(last, 256, repeats=5, min_sample_s=0.02) == pytest.approx(8 * 0.8 + 0.5)


def test_fast_kernels_cost_about_the_samples_plus_the_overhead():
    last = PointCost(n=8, median_s=1e-6, overhead_s=0.3)
    predicted = predict_point_s(last, 16, repeats=5, min_sample_s=0.02)
    assert 0.3 + 6 * 0.02 <= predicted < 0.3 + 6 * 0.02 * 1.1


def test_budget_stops_a_slow_rung_early():
    # python_naive-like: 92 ms at n = 128, 0.5 s worker overhead, 5 s of its share left
    last = PointCost(n=128, median_s=0.092, overhead_s=0.5)
    allowed, predicted = budget_allows(last, 256, 10.0, repeats=5, min_sample_s=0.02)
    assert allowed and predicted == pytest.approx(8 * 0.092 * 8 + 0.5)
    allowed, predicted = budget_allows(
        PointCost(256, 0.76, 0.5), 512, 5.0, repeats=5, min_sample_s=0.02
    )
    assert not allowed and predicted == pytest.approx(8 * 0.76 * 8 + 0.5)


def test_first_size_always_runs_later_ones_only_with_budget_left():
    assert budget_allows(None, 8, 0.01, 5, 0.02) == (True, None)
    assert budget_allows(None, 8, -3.0, 5, 0.02) == (True, None)  # earlier ones overspent
    assert budget_allows(PointCost(8, 1e-6, 0.1), 16, 0.0, 5, 0.02) == (False, None)
    assert budget_allows(PointCost(8, 1e-6, 0.1), 16, -1.0, 5, 0.02) == (False, None)


def test_fair_share_gives_leftovers_to_later_scenarios():
    assert fair_share_s(60.0, 0.0, 4) == 15.0
    # the first scenario stopped after 5 s: the other three share the remaining 55 s
    assert fair_share_s(60.0, 5.0, 3) == pytest.approx(55.0 / 3)
    assert fair_share_s(60.0, 70.0, 2) == 0.0
    assert fair_share_s(60.0, 0.0, 0) == 0.0


def _result(**kw):
    base = {
        "name": "python_naive",
        "title": "t",
        "rung": 1,
        "layers": [],
        "removes": [],
        "n": 64,
        "dtype": "float64",
        "flops": 2 * 64**3,
        "status": "ok",
    }
    return ScenarioResult(**{**base, **kw})


def test_overhead_is_wall_time_beyond_the_timed_calls():
    result = _result(wall_s=1.0, median_s=0.01, loops=2, warmups_s=[0.01], samples_s=[0.01] * 5)
    # timed: one warm call (0.01) + 2 loops x 6 samples x 0.01 = 0.13 s
    assert point_overhead_s(result) == pytest.approx(0.87)
    assert point_overhead_s(_result(wall_s=None, median_s=0.01)) == 0.0
    assert point_overhead_s(_result(wall_s=0.01, median_s=0.01, samples_s=[0.01] * 5)) == 0.0


def _summary():
    point = {"median_s": 1e-3, "samples_s": [1e-3], "error": None, "wall_s": 0.4}
    return RunSummary(
        settings=Settings(scenarios=["python_naive", "numpy_matmul"]),
        sweep={
            "sizes": [8, 16, 32],
            "budget_s": 10.0,
            "dtype": "float64",
            "points": [
                {**point, "scenario": "python_naive", "n": 8, "status": "ok", "gflops": 0.035},
                {**point, "scenario": "python_naive", "n": 16, "status": "ok", "gflops": 0.04,
                 "warnings": ["unstable: CV 12% (≥ 10%)"]},
                {**point, "scenario": "numpy_matmul", "n": 8, "status": "ok", "gflops": 1.1},
                {**point, "scenario": "numpy_matmul", "n": 16, "status": "timeout",
                 "gflops": None, "median_s": None, "samples_s": [],
                 "error": "timed out after 1 s"},
            ],
            "stopped": {"python_naive": "budget", "numpy_matmul": "timeout"},
        },
    )  # fmt: skip


def test_rows_curves_and_cells():
    rows = sweep_rows(_summary())
    assert [r.scenario for r in rows] == ["python_naive", "numpy_matmul"]
    assert rows[0].curve() == ([8, 16], [0.035, 0.04])
    assert rows[1].curve() == ([8], [1.1])
    assert rows[1].stopped == "timeout"
    assert point_cell(rows[0].points[16]) == "0.04 !"
    assert point_cell(rows[1].points[16]) == "timeout"
    assert point_cell(rows[1].points.get(32)) == "—"
    assert sweep_rows(RunSummary()) == []


def test_table_has_a_row_per_scenario_and_a_column_per_size():
    lines = render_sweep_table(_summary()).splitlines()
    assert lines[0].split() == ["GFLOP/s", "n=8", "n=16", "n=32", "stopped"]
    assert lines[1].split() == ["python_naive", "0.035", "0.04", "!", "—", "budget"]
    assert lines[2].split() == ["numpy_matmul", "1.1", "timeout", "—", "timeout"]
    assert "numpy_matmul at n=16: timeout — timed out after 1 s" in lines[3]
    assert lines[-1].strip().startswith("! unstable")
