"""The probe cache keeps one entry per key: alternating interpreters reuse each one's values."""

from __future__ import annotations

import json
import sys
import time

import pytest

from overhead_tui.engine import probe_runs
from overhead_tui.engine.probe_runs import read_cache, write_cache
from overhead_tui.summary.codec import to_json
from overhead_tui.summary.probes import ProbeResult, probe_records
from overhead_tui.worker.protocol import Probe


def _results(value: float) -> dict[str, ProbeResult]:
    return {
        "dispatch": ProbeResult(
            "dispatch", "dispatch", "ns/dispatch", "interpreter_dispatch", value=value
        )
    }


def test_two_interpreters_keep_their_entries(tmp_path):
    cache = tmp_path / "probes.json"
    write_cache("py311", _results(2.0), cache)
    write_cache("py313", _results(1.5), cache)
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    assert read_cache("py313", cache)["dispatch"].value == 1.5
    assert read_cache("other", cache) is None


@pytest.mark.parametrize(
    "change",
    [
        {"value": "fast"},
        {"details": [1]},
        {"interval": "x"},
        {"interval": [1.0]},
        {"samples": ["x"]},
        {"detail_intervals": {"int_ns": 3.0}},
        {"unit": 5},
        {"error": ["x"]},
    ],
)
def test_a_cached_probe_of_the_wrong_types_is_stale_not_a_crash(tmp_path, change):
    cache = tmp_path / "probes.json"
    write_cache("k", _results(2.0), cache)
    assert read_cache("k", cache) == _results(2.0)
    data = json.loads(cache.read_text(encoding="utf-8"))
    for entry in (data["probes"], data["entries"]["k"]):
        entry["dispatch"].update(change)
    cache.write_text(json.dumps(data), encoding="utf-8")
    assert read_cache("k", cache) is None  # measured again


def test_one_key_file_is_read_and_kept(tmp_path):
    cache = tmp_path / "probes.json"
    old = {"key": "py311", "probes": {"dispatch": to_json(_results(2.0)["dispatch"])}}
    cache.write_text(json.dumps(old), encoding="utf-8")
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    write_cache("py312", _results(1.8), cache)
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    data = json.loads(cache.read_text(encoding="utf-8"))
    assert data["key"] == "py312"  # the newest entry, where a one-key reader looks


def test_oldest_entries_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr(probe_runs, "CACHE_ENTRIES", 2)
    cache = tmp_path / "probes.json"
    for i, key in enumerate(["a", "b", "c"]):
        write_cache(key, _results(float(i)), cache)
    assert read_cache("a", cache) is None
    assert read_cache("b", cache)["dispatch"].value == 1.0
    write_cache("b", _results(5.0), cache)  # rewriting b makes it the newest
    write_cache("d", _results(3.0), cache)
    assert read_cache("c", cache) is None
    assert read_cache("b", cache)["dispatch"].value == 5.0


def test_a_probe_records_the_load_of_other_processes(monkeypatch, tmp_path):
    # readings 1,000 CPU-seconds apart of which 600 busy; the probe workers used none
    from overhead_tui.machine.host import CpuTimes

    readings = iter([CpuTimes(0.0, 0.0, 0.0), CpuTimes(0.0, 1000.0, 600.0)])
    monkeypatch.setattr(probe_runs, "read_cpu_times", lambda: next(readings))
    monkeypatch.setattr(probe_runs, "own_cpu_s", lambda children=False: 0.0)
    monkeypatch.setattr(probe_runs, "_measure_once", lambda *a: Probe(value=1.0, spread=0.0))
    spec = type("Spec", (), {"name": "p", "title": "p", "unit": "ns", "layer": "x"})()
    spec.processes = 1
    before = time.time()
    result = probe_runs.measure_probe(spec, "python")
    assert result.other_cpu_fraction == 0.6
    assert before <= result.measured_at <= time.time()  # when: how old a cached value is


def test_probes_measured_beside_a_neighbour_are_named_in_one_warning():
    from overhead_tui.machine.facts import probe_load_warnings

    probes = probe_records(
        {
            "dispatch": {"value": 1.0, "other_cpu_fraction": 0.02},
            "boxing": {"value": 3.0, "other_cpu_fraction": 0.45},
            "call_overhead": {"value": 6.0, "other_cpu_fraction": 0.30},
            "clock": {"value": 4.0},  # recorded before the load was kept
        }
    )
    (warning,) = probe_load_warnings(probes)
    assert "(boxing, call_overhead)" in warning and "45%" in warning
    assert "overhead-tui probes --refresh" in warning
    assert probe_load_warnings({"dispatch": probes["dispatch"]}) == []


def test_a_dispatch_probe_whose_processes_differ_widely_is_said():
    from overhead_tui.machine.facts import probe_load_warnings

    steady = probe_records({"dispatch": {"value": 1.2, "samples": [1.198, 1.2, 1.238]}})
    assert probe_load_warnings(steady) == []  # 3 %: a quiet run
    moving = probe_records({"dispatch": {"value": 1.88, "samples": [1.37, 1.88, 1.93]}})
    (warning,) = probe_load_warnings(moving)
    assert warning.startswith("the dispatch probe's processes differ by 41% (1.37–1.93 ns/")
    assert "overhead-tui probes --refresh" in warning


def test_the_headless_table_ends_with_the_machines_warnings():
    from overhead_tui.present.tables import render_table
    from tests.conftest import RECORDED_SUMMARY, fixture_summary

    summary = fixture_summary(RECORDED_SUMMARY)
    summary.machine.limit_warnings = ["probes measured while other processes used 45% (boxing)"]
    assert render_table(summary).splitlines()[-1] == (
        "  machine: ! probes measured while other processes used 45% (boxing)"
    )


def test_the_time_left_comes_from_each_probes_last_cost_here_else_the_mean_so_far():
    from types import SimpleNamespace as Spec

    from overhead_tui.engine.probe_costs import read_costs, time_left, write_costs

    left = time_left
    pending = [Spec(name="a"), Spec(name="b")]
    assert left(pending, {}, {}) is None  # nothing known yet: no guess
    assert left(pending, {"a": 3.0, "b": 5.0}, {}) == 8.0  # this machine's last run
    assert left(pending, {"a": 3.0}, {"x": 2.0, "y": 4.0}) == 6.0  # b: the mean so far
    write_costs({"a": 1.5}, probe_runs.costs_path())
    assert read_costs(probe_runs.costs_path()) == {"a": 1.5}


def test_a_probe_with_a_list_details_range_is_read_back_from_the_cache(tmp_path):
    """numpy_call's per-size rates carry their lows then highs: the cache must keep them (a
    cache that refused them measured every probe again on every run)."""
    cache = tmp_path / "probes.json"
    result = ProbeResult(
        "numpy_call", "numpy call layers", "µs/call", "library_layers", value=0.3,
        details={"outer_ns_per_element": [0.5, 0.8]},
        detail_intervals={"outer_ns_per_element": [0.4, 0.7, 0.6, 0.9], "view_ns": [50.0, 60.0]},
    )  # fmt: skip
    write_cache("k", {"numpy_call": result}, cache)
    found = read_cache("k", cache)
    assert found is not None
    assert found["numpy_call"].detail_intervals["outer_ns_per_element"] == [0.4, 0.7, 0.6, 0.9]
    odd = json.loads(cache.read_text())
    for entry in (odd["entries"]["k"], odd.get("probes") or {}):  # the newest is at the top too
        if "numpy_call" in entry:
            entry["numpy_call"]["detail_intervals"]["view_ns"] = [1.0, 2.0, 3.0]
    cache.write_text(json.dumps(odd))
    assert read_cache("k", cache) is None  # an odd-length range is no range: measured again


def test_a_peak_whose_all_cores_run_came_out_below_one_core_is_flagged():
    """The Xeon's precision peaks as recorded quiet (../shared/data/intel-amx-kvm167,
    2026-12-07), then with AMX int8's all-cores run taken beside a busy core (issue 52: it came
    out below one core): that family is named, the quiet ones are not."""
    from overhead_tui.machine.facts import all_below_one, probe_load_warnings

    recorded = {  # bfloat16-ladder.summary.json's precision_peak details, GFLOP/s (GOP/s)
        "amx_bf16_one_core": 3479.6, "amx_bf16_all_cores": 6705.2,
        "amx_int8_one_core": 6534.2, "amx_int8_all_cores": 12760.9,
        "avx512_bf16_one_core": 116.2, "avx512_bf16_all_cores": 237.6,
    }  # fmt: skip
    quiet = probe_records({"precision_peak": {"value": 6534.2, "details": recorded}})
    assert all_below_one(quiet) == []
    assert not any("all cores computed slower" in w for w in probe_load_warnings(quiet))
    disturbed = {**recorded, "amx_int8_all_cores": 5120.0}
    probes = probe_records({"precision_peak": {"value": 6534.2, "details": disturbed}})
    assert [name for name, _, _ in all_below_one(probes)] == ["amx_int8"]
    (warning,) = [w for w in probe_load_warnings(probes) if "all cores computed slower" in w]
    assert "amx_int8 (5120 < 6534 GFLOP/s)" in warning and "probes --refresh" in warning


def test_a_probe_that_timed_the_reference_loop_among_its_own_keeps_that_speed(tmp_path):
    """loop_mix times the dispatch probe's reference loop in the same rounds as its ten loops;
    the worker's own reference timing (before and after the probe) does not replace it."""
    from overhead_tui.plugins.probes import discover_probes

    (tmp_path / "own_reference.py").write_text(
        'NAME = "own_reference"\nTITLE = "t"\nUNIT = "ns/dispatch"\n'
        'LAYER = "interpreter_dispatch"\n\n\ndef measure(ctx):\n'
        '    return {"samples": [1.0, 1.0], "details": {"reference_dispatch_ns": 123.0}}\n'
    )
    (spec,) = [s for s in discover_probes(tmp_path) if s.name == "own_reference"]
    result = probe_runs.measure_probe(spec, sys.executable, processes=1, repeats=2)
    assert result.error is None, result.error
    assert result.details["reference_dispatch_ns"] == 123.0


@pytest.mark.parametrize(
    ("values", "processes", "ran"),
    [
        ([1.0, 1.02, 9.0], None, 2),  # two agree within 3 %: the third is not run
        ([1.0, 1.2, 1.1], None, 3),  # 20 % apart: a third decides the median
        ([1.0, 1.0, 1.0], 3, 3),  # asked for three: three
        ([1.0, 1.0, 1.0], None, 2),
    ],
)
def test_a_probe_stops_once_its_processes_agree(monkeypatch, values, processes, ran):
    calls = iter(values)
    monkeypatch.setattr(probe_runs, "_measure_once", lambda *a: Probe(next(calls), 0.0))
    spec = type("Spec", (), {"name": "p", "title": "p", "unit": "ns", "layer": "x"})()
    spec.processes = 0
    result = probe_runs.measure_probe(spec, "python", processes=processes)
    assert len(result.samples) == ran
    assert result.spread == pytest.approx((max(values[:ran]) - min(values[:ran])) / result.value)
