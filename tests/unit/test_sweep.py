"""Size sweeps: --sizes parsing, the budget's prediction and early stop, the table, and the
engine on fake points (probes and limits, failed points, sizes above a maximum)."""

from __future__ import annotations

import argparse
import dataclasses
import json

import pytest

from overhead_tui.commands.budgeted import parse_sizes
from overhead_tui.engine.events import ProbeStarted
from overhead_tui.engine.results import new_result
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.sweep_rows import point_cell, sweep_rows
from overhead_tui.present.tables import render_sweep_table
from overhead_tui.summary.probes import ProbeResult
from overhead_tui.summary.records import MachineInfo, RunSummary, ScenarioResult, Settings
from overhead_tui.summary.sweep import SweepRecord
from overhead_tui.sweeps.budget import (
    PointCost,
    budget_allows,
    fair_share_s,
    point_overhead_s,
    predict_point_s,
    timed_calls,
)
from overhead_tui.sweeps.budgeted import PointStarting as PointStarted
from overhead_tui.sweeps.budgeted import ScenarioStopped
from overhead_tui.sweeps.sizes import SizeSweep
from tests.conftest import FIXTURES


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
    last = PointCost(size=128, median_s=0.1, overhead_s=0.5)
    # n doubles: 0.8 s per call, one call per sample -> 8 calls + the overhead
    assert predict_point_s(last, 256, repeats=5, min_sample_s=0.02) == pytest.approx(8 * 0.8 + 0.5)


def test_fast_kernels_cost_about_the_samples_plus_the_overhead():
    last = PointCost(size=8, median_s=1e-6, overhead_s=0.3)
    predicted = predict_point_s(last, 16, repeats=5, min_sample_s=0.02)
    assert 0.3 + 6 * 0.02 <= predicted < 0.3 + 6 * 0.02 * 1.1


def test_budget_stops_a_slow_rung_early():
    # python_naive-like: 92 ms at n = 128, 0.5 s worker overhead, 5 s of its share left
    last = PointCost(size=128, median_s=0.092, overhead_s=0.5)
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
        sweep=SweepRecord.from_json({
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
        }),
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


# -- the engine on fake points: limits, probes outside the budget, failed points --------------

FAKE_PROBES = {
    "clock": (3.0, {}),
    "stream_triad": (20.0, {"one_thread_gbs": 12.0}),
    "simd_fma": (100.0, {"one_core_gflops": 50.0}),
}
"""Probe values (and details) the fake measurement returns: GHz, GB/s, GFLOP/s."""


class FakeClock:
    """A monotonic clock (s) that moves only when told to."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_point(spec, n, dtype="float64", status="ok", call_s=None):
    """A finished point of ``spec`` at ``n``: 1 µs × (n / 8)³ per call unless ``call_s``."""
    result = new_result(spec, n, dtype)
    result.status, result.error = status, None if status == "ok" else f"wrong at n = {n}"
    if status == "ok":
        median = call_s or 1e-6 * (n / 8) ** 3
        result.samples_s = [median] * 5
        result.median_s, result.loops, result.wall_s = median, 1, 0.3
        result.gflops = result.flops / median / 1e9
    return result


@pytest.fixture
def fake_sweep(monkeypatch, tmp_path):
    """Build a :class:`SizeSweep` of fixture scenarios whose points and probes are faked.

    Points take 1 s of the fake clock (``invalid`` from ``fail_from`` on); each measured
    probe takes ``probe_s`` of it.  The probe cache is a file under ``tmp_path``.
    """
    clock = FakeClock()
    measured = []
    cache = tmp_path / "cache" / "probes.json"
    monkeypatch.setattr("overhead_tui.engine.probe_runs.cache_path", lambda: cache)

    def build(names, sizes, budget_s=60.0, probes=True, probe_s=0.0, fail_from=None):
        def measure(spec, python, cancel=None):
            measured.append(spec.name)
            clock.now += probe_s
            value, details = FAKE_PROBES.get(spec.name, (1.0, {}))
            probe = ProbeResult(spec.name, spec.title, spec.unit, spec.layer, value=value)
            probe.details = dict(details)
            return probe

        def run_point(self, plan):
            spec, n = plan.spec, plan.x
            assert plan.settings.size == n and plan.folder == f"{spec.name}-{n}"
            clock.now += 1.0
            failed = fail_from is not None and n >= fail_from and spec.name == names[0]
            return fake_point(spec, n, status="invalid" if failed else "ok")
            yield  # a generator, like SizeSweep._run_point

        monkeypatch.setattr("overhead_tui.engine.probe_runs.measure_probe", measure)
        monkeypatch.setattr(SizeSweep, "_run_point", run_point)
        specs = select(discover([FIXTURES / "fast"]), names)
        settings = Settings(repeats=5, min_sample_s=0.02, probes=probes)
        return SizeSweep(specs, sizes, budget_s, settings, tmp_path / "run", clock=clock)

    build.measured = measured
    build.cache = cache
    return build


def test_a_sweep_records_the_machine_limits_from_the_probes(fake_sweep):
    sweep = fake_sweep(["fast_python", "fast_dense"], [8, 16])
    events = list(sweep.events())
    probing = [e.name for e in events if isinstance(e, ProbeStarted)]
    assert probing and probing == fake_sweep.measured  # measured once, each announced
    assert fake_sweep.cache.exists()  # and cached for the next run or sweep
    saved = RunSummary.load(sweep.run_dir)
    assert saved.settings.probes and saved.probes["clock"].value == 3.0
    machine = saved.machine
    assert machine.clock_ghz["measured"] == 3.0
    assert machine.bandwidth_gbs == {"one_core": 12.0, "all_cores": 20.0}
    assert machine.peak_gflops["float64"].measured == 100.0
    for result in saved.scenarios:  # each at its largest n, with its roofline figures
        assert result.n == 16 and result.arithmetic_intensity == pytest.approx(2 * 16 / 24)
        assert result.pct_peak == pytest.approx(result.gflops / 100.0)
    # the points themselves run without probes: no breakdowns per point
    assert all(not r.breakdown for r in saved.scenarios)


def test_cached_probes_are_not_measured_again(fake_sweep):
    list(fake_sweep(["fast_dense"], [8]).events())
    fake_sweep.measured.clear()
    sweep = fake_sweep(["fast_dense"], [8])
    events = list(sweep.events())
    assert not any(isinstance(e, ProbeStarted) for e in events) and not fake_sweep.measured
    assert sweep.summary.machine.clock_ghz["measured"] == 3.0


def test_without_probes_the_summary_says_so(fake_sweep):
    sweep = fake_sweep(["fast_dense"], [8], probes=False)
    events = list(sweep.events())
    assert not any(isinstance(e, ProbeStarted) for e in events) and not fake_sweep.measured
    saved = RunSummary.load(sweep.run_dir)
    assert not saved.settings.probes and saved.probes == {}
    assert saved.machine.clock_ghz["measured"] is None
    assert saved.scenarios[0].arithmetic_intensity is not None  # from n and the dtype alone


def test_probe_measurement_is_not_charged_to_the_budget(fake_sweep):
    # 100 s of probing against a 10 s budget: the first scenario gets half of all 10 s, the
    # second what is left after the first one's two 1 s points
    sweep = fake_sweep(["fast_python", "fast_dense"], [8, 16], budget_s=10.0, probe_s=100.0)
    events = list(sweep.events())
    starts = [(e.scenario, e.x, e.remaining_s) for e in events if isinstance(e, PointStarted)]
    assert starts == [
        ("fast_python", 8, 5.0),
        ("fast_python", 16, 4.0),
        ("fast_dense", 8, 8.0),
        ("fast_dense", 16, 7.0),
    ]
    assert sweep.summary.sweep.to_json()["stopped"] == {}
    assert sweep.summary.wall_s >= 100.0  # the wall time includes the probes


def test_a_failed_point_shows_in_scenarios_with_its_status_and_error(fake_sweep):
    sweep = fake_sweep(["fast_python", "fast_dense"], [8, 16, 32, 64], probes=False, fail_from=32)
    list(sweep.events())
    saved = RunSummary.load(sweep.run_dir)
    failed = saved.scenario("fast_python")
    assert (failed.status, failed.n, failed.error) == ("invalid", 32, "wrong at n = 32")
    assert failed.median_s is None and failed.pct_peak is None
    assert saved.sweep.to_json()["stopped"]["fast_python"] == "invalid"
    # its ok points stay in the sweep; the other scenario is at its largest n
    points = [
        (p["n"], p["status"])
        for p in saved.sweep.to_json()["points"]
        if p["scenario"] == "fast_python"
    ]
    assert points == [(8, "ok"), (16, "ok"), (32, "invalid")]
    assert saved.scenario("fast_dense").n == 64 and saved.scenario("fast_dense").status == "ok"


def test_sizes_above_a_maximum_stop_that_scenario(fake_sweep):
    sweep = fake_sweep(["fast_python", "fast_dense"], [8, 16, 20000], probes=False)
    events = list(sweep.events())
    stops = [(e.scenario, e.reason) for e in events if isinstance(e, ScenarioStopped)]
    assert stops == [("fast_python", "max_size"), ("fast_dense", "max_size")]
    assert [p["n"] for p in sweep.summary.sweep.to_json()["points"]] == [8, 16, 8, 16]


def test_the_sweep_takes_numba_facts_from_any_point(fake_sweep, monkeypatch):
    sweep = fake_sweep(["fast_dense"], [8], probes=False)
    first = MachineInfo(numpy_version="2.1.0")
    sweep._merge_machine(first)
    assert sweep.summary.machine.numpy_version == "2.1.0"
    sweep._merge_machine(MachineInfo(numpy_version="9.9", numba_version="0.60.0"))
    assert sweep.summary.machine.numpy_version == "2.1.0"  # the first point's environment
    assert sweep.summary.machine.numba_version == "0.60.0"


def test_probe_options_reach_the_sweep_settings():
    from overhead_tui.cli import build_parser
    from overhead_tui.commands.sweep import plan_sweep

    parser = build_parser()
    for argv, probes, refresh in (
        ([], True, False),
        (["--refresh-probes"], True, True),
        (["--no-probes"], False, False),
    ):
        args = parser.parse_args(["sweep", "--scenario", "numpy_matmul", "--sizes", "8", *argv])
        _, settings = plan_sweep(args)
        assert (settings.probes, settings.refresh_probes) == (probes, refresh)


def test_the_sweep_log_keeps_its_lines(fake_sweep):
    sweep = fake_sweep(["fast_dense"], [8, 16], probes=False)
    list(sweep.events())
    lines = [json.loads(x) for x in (sweep.run_dir / "log.jsonl").read_text().splitlines()]
    kinds = [line["kind"] for line in lines]
    assert kinds == [
        "sweep_started",
        "point_started",
        "point",
        "point_started",
        "point",
        "sweep_finished",
    ]
    assert set(lines[0]) == {"t", "kind", "sizes", "budget_s"} and lines[0]["sizes"] == [8, 16]
    assert set(lines[1]) == {"t", "kind", "name", "n", "predicted_s", "remaining_s"}
    point = {k: v for k, v in lines[2].items() if k not in ("t", "kind")}
    assert point == dataclasses.asdict(sweep.record.points[0])
