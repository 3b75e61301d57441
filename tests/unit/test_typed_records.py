"""The summary's derived parts as typed records: breakdown, agreement, waterfall, peaks and
limits, reference machines.  Their JSON is the dicts the tool always wrote, and older files
load into them and write back unchanged."""

from __future__ import annotations

import json

import pytest

from overhead_tui.analysis.attribution import attribute
from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.machine.limits import machine_limits
from overhead_tui.machine.reference import ReferenceMachine, load_shipped
from overhead_tui.summary.breakdown import Breakdown, BreakdownRow, WaterfallStep
from overhead_tui.summary.codec import ABSENT, from_json, to_json
from overhead_tui.summary.limits import MachineLimits, PeakEntry
from overhead_tui.summary.probes import probe_records
from overhead_tui.summary.profile import ProfileRecord
from overhead_tui.summary.records import RunSummary
from tests.conftest import FIXTURES, fixture_summary, remeasured

RECORDED = ["recorded_summary.json", "recorded_summary_v3.json", "sweep_summary.json"]


def _raw(name):
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", [*RECORDED, "shapes_summary.json", "summary_v1.json"])
def test_an_old_summary_loads_into_records_and_writes_its_derived_parts_back_unchanged(name):
    raw = _raw(name)
    summary = RunSummary.load(FIXTURES / name)
    for stored, result in zip(raw["scenarios"], summary.scenarios, strict=True):
        if stored.get("breakdown") is None:
            assert result.breakdown is None
            continue
        assert isinstance(result.breakdown, Breakdown)
        assert all(isinstance(r, BreakdownRow) for r in result.breakdown.rows)
        assert to_json(result.breakdown) == stored["breakdown"]
    assert all(isinstance(s, WaterfallStep) for s in summary.waterfall)
    assert [to_json(s) for s in summary.waterfall] == raw.get("waterfall", [])
    peaks = raw["machine"].get("peak_gflops") or raw["machine"].get("limits", {}).get(
        "peak_gflops", {}
    )
    assert all(isinstance(p, PeakEntry) for p in summary.machine.peak_gflops.values())
    assert {k: to_json(p) for k, p in summary.machine.peak_gflops.items()} == peaks


def test_an_old_breakdown_has_no_scale_and_writes_none():
    summary = fixture_summary(FIXTURES / "recorded_summary.json")
    b = next(r.breakdown for r in summary.scenarios if r.breakdown)
    assert b.scale is ABSENT and not b.scale and not b.agreement
    assert "scale" not in to_json(b) and "agreement" not in to_json(b)


def test_a_fresh_breakdown_round_trips_through_json_with_every_key():
    summary = fixture_summary(FIXTURES / "recorded_summary_v3.json")
    naive = remeasured(summary, "python_naive", reference_dispatch_ns=(9.0, 10.0, 11.0))
    naive.profile = ProfileRecord.from_json(
        {"backends": {"perf": {"status": "ok", "samples": "1000", "layers": {"boxing": 0.2}}}}
    )
    hoisted = summary.scenario("python_hoisted")
    hoisted.profile = ProfileRecord.from_json({"backends": {"perf": {"status": "error"}}})
    attribute(summary, summary.probes)

    data = json.loads(summary.dumps())
    stored = {s["name"]: s["breakdown"] for s in data["scenarios"]}
    assert stored["python_naive"]["scale"]["samples"] == 3
    assert stored["python_naive"]["agreement"]["layers"]["boxing"]["verdict"] in (
        "agree",
        "disagree",
    )
    assert stored["python_hoisted"]["agreement"] is None  # perf ran, and failed: null
    assert "agreement" not in stored["numpy_matmul"]  # never profiled: no key
    for key in ("explained_interval", "measured_interval", "intervals", "scale"):
        assert key in stored["python_naive"]
    row = stored["python_naive"]["rows"][0]
    assert {"unit_interval", "ns_interval", "share", "share_interval"} <= set(row)
    assert isinstance(row["ns_interval"], list)  # tuples in memory, lists on disk

    again = RunSummary.from_json(data)
    for before, after in zip(summary.scenarios, again.scenarios, strict=True):
        assert after.breakdown == before.breakdown
    assert again.waterfall == summary.waterfall
    assert json.loads(again.dumps()) == data


def test_a_waterfall_step_keeps_its_from_key():
    step = WaterfallStep(
        from_="a", to="b", speedup=2.0, saved_s_per_flop=1e-9, layers={"boxing": 1e-9}
    )
    data = to_json(step)
    assert data["from"] == "a" and "from_" not in data
    assert "speedup_interval" not in data and "within_noise" not in data
    assert from_json(WaterfallStep, data) == step


def test_limits_are_records_and_an_unknown_cpu_writes_no_cpu_keys(monkeypatch):
    monkeypatch.setattr("overhead_tui.machine.limits.cgroup_cpu_quota", lambda: None)
    monkeypatch.setattr("overhead_tui.machine.limits.max_clock_ghz", lambda: None)
    probes = probe_records({"clock": {"value": 2.0}, "simd_fma": {"value": 80.0}})
    unknown = machine_limits(None, probes)
    assert isinstance(unknown, MachineLimits)
    data = to_json(unknown)
    assert "physical_cores" not in data and "isa" not in data
    assert set(data["peak_gflops"]["float64"]) == {"measured", "measured_by", "one_core"}
    cpu = parse_cpuinfo((FIXTURES / "cpuinfo" / "zen4-epyc-2vcpu.txt").read_text())
    known = to_json(machine_limits(cpu, probes))
    assert known["physical_cores"] == 2 and known["peak_gflops"]["float64"]["formula"]
    assert from_json(MachineLimits, known) == machine_limits(cpu, probes)


def test_reference_machines_are_records():
    machines = load_shipped()
    assert machines and all(isinstance(m, ReferenceMachine) for m in machines)
    a100 = next(m for m in machines if m.name.startswith("NVIDIA A100"))
    assert a100.figure("fp64_gflops") == 9700.0 and a100.fp16_amx_gflops is None


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_summary_holding_a_non_finite_number_is_refused_in_one_line(tmp_path, constant):
    """Python's JSON reader takes NaN and Infinity; a summary holding one is no measurement
    (compare and open showed ``nan ns`` and ``nan×``)."""
    from overhead_tui.summary.interpreters import InterpretersSummary
    from overhead_tui.summary.records import RunSummary
    from overhead_tui.summary.validation import SummaryError
    from tests.conftest import RECORDED_SUMMARY_V3

    text = RECORDED_SUMMARY_V3.read_text(encoding="utf-8")
    assert RunSummary.load(RECORDED_SUMMARY_V3).scenarios[0].median_s is not None
    data = json.loads(text)
    data["scenarios"][0]["median_s"] = 123456.789
    broken = tmp_path / "summary.json"
    broken.write_text(json.dumps(data).replace("123456.789", constant, 1), encoding="utf-8")
    with pytest.raises(SummaryError) as info:
        RunSummary.load(broken)
    assert f"holds {constant}, which is no measurement; fix:" in str(info.value)
    assert "\n" not in str(info.value)
    with pytest.raises(SummaryError, match=constant):
        InterpretersSummary.load(broken)
