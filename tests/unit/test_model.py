from __future__ import annotations

import json

import pytest

from overhead_tui.model import SCHEMA_VERSION, RunSummary, SummaryError
from tests.conftest import RECORDED_SUMMARY, SUMMARY_V1


def test_recorded_summary_round_trips(tmp_path):
    summary = RunSummary.load(RECORDED_SUMMARY)
    assert len(summary.scenarios) == 21 and summary.dense is not None
    path = tmp_path / "run" / "summary.json"
    summary.save(path)
    again = RunSummary.load(path.parent)  # a run directory works too
    assert again.to_json() == summary.to_json()
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and json.loads(text)["schema_version"] == SCHEMA_VERSION
    assert not list(path.parent.glob(".summary-*"))  # no temp file left behind


def _mutated(tmp_path, change):
    data = json.loads(RECORDED_SUMMARY.read_text())
    change(data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["scenarios"][0].update(status="fast"), "scenarios.0.status"),
        (lambda d: d.pop("machine"), "'machine' is a required property"),
        (lambda d: d.update(schema_version=99), "schema_version 99 is not supported"),
        (lambda d: d.pop("schema_version"), "not an overhead-tui summary"),
        (lambda d: d["scenarios"][2].update(median_s=-1), "scenarios.2.median_s"),
    ],
)
def test_invalid_summaries_are_rejected_with_the_place(tmp_path, change, message):
    with pytest.raises(SummaryError, match=message.replace(".", r"\.")):
        RunSummary.load(_mutated(tmp_path, change))


def test_corrupt_and_missing_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "tool": ')
    with pytest.raises(SummaryError, match="is not JSON"):
        RunSummary.load(bad)
    with pytest.raises(SummaryError, match="cannot read"):
        RunSummary.load(tmp_path / "missing.json")
    foreign = tmp_path / "foreign.json"
    foreign.write_text("[1, 2, 3]")
    with pytest.raises(SummaryError, match="not an overhead-tui summary"):
        RunSummary.load(foreign)


def test_version_1_summary_still_opens_and_is_upgraded():
    summary = RunSummary.load(SUMMARY_V1)
    assert summary.schema_version == SCHEMA_VERSION
    assert summary.probes == {} and summary.waterfall == []
    assert all(s.breakdown is None and s.events_per_fma is None for s in summary.scenarios)
    assert summary.scenario("python_naive").median_s > 0


def test_version_2_limits_are_lifted_into_machine():
    data = json.loads(RECORDED_SUMMARY.read_text(encoding="utf-8"))
    data["schema_version"] = 2
    data["machine"]["limits"] = {
        "physical_cores": 2,
        "clock_ghz": {"nominal": 2.6, "measured": 3.6},
        "peak_gflops": {"float64": {"measured": 100.0}},
        "bandwidth_gbs": {"one_core": 20.0, "all_cores": 30.0},
    }
    summary = RunSummary.from_json(data)
    assert summary.schema_version == SCHEMA_VERSION
    assert summary.machine.physical_cores == 2
    assert summary.machine.peak_gflops["float64"]["measured"] == 100.0
    assert summary.machine.limits["bandwidth_gbs"]["all_cores"] == 30.0
    assert "limits" not in summary.to_json()["machine"]
