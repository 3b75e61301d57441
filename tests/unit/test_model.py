from __future__ import annotations

import json

import pytest

from overhead_tui.summary.records import MAX_SUMMARY_BYTES, SCHEMA_VERSION, RunSummary
from overhead_tui.summary.validation import SummaryError, condensed
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
        # one bad item in a long list of samples (condensed for the fast check) is still found
        (
            lambda d: d["scenarios"][1].update(samples_s=[0.1] * 500 + [-1.0] + [0.2] * 99),
            "scenarios.1.samples_s.500",
        ),
        (
            lambda d: d["scenarios"][1].update(samples_s=[0.1] * 500 + ["0.2"]),
            "scenarios.1.samples_s.500",
        ),
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


def test_a_missing_file_or_folder_without_a_summary_names_the_fix(tmp_path):
    with pytest.raises(SummaryError) as missing:
        RunSummary.load(tmp_path / "missing.json")
    assert str(missing.value) == (
        f"cannot read {tmp_path / 'missing.json'}: No such file or directory; "
        "fix: give a summary.json file or a run directory"
    )
    with pytest.raises(SummaryError) as folder:
        RunSummary.load(tmp_path)
    assert str(folder.value).endswith("; fix: give a run directory or a summary.json file")


def test_a_file_nested_too_deep_is_not_json_not_a_crash(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)  # json.loads: RecursionError
    with pytest.raises(SummaryError, match="is not JSON"):
        RunSummary.load(deep)


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
    assert summary.machine.peak_gflops["float64"].measured == 100.0
    assert summary.machine.limits.bandwidth_gbs["all_cores"] == 30.0
    assert "limits" not in summary.to_json()["machine"]


def test_long_number_lists_are_condensed_to_what_the_schema_checks():
    samples = [0.5, 2.0, 3, float("nan"), 0.25] * 100
    assert condensed({"a": [{"s": samples}], "b": "x"}) == {
        "a": [{"s": [0.25, 3, 3, 2.0, 0.5]}],
        "b": "x",
    }
    assert condensed([True] * 40) == [True] * 40  # not numbers: kept whole
    assert condensed([1, 2, 3]) == [1, 2, 3]  # short lists are kept whole


def test_a_large_summary_loads_whole(tmp_path):
    data = json.loads(RECORDED_SUMMARY.read_text())
    samples = [0.098 + i * 1e-9 for i in range(1_000_000)]  # about 20 MB of JSON
    data["scenarios"][0]["samples_s"] = samples
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data))
    assert path.stat().st_size > 15_000_000
    summary = RunSummary.load(path)
    assert summary.scenarios[0].samples_s == tuple(samples)
    assert summary.scenarios[1].name == data["scenarios"][1]["name"]


def test_a_summary_above_the_size_limit_is_refused_unread(tmp_path, monkeypatch):
    path = tmp_path / "summary.json"
    with open(path, "wb") as fh:  # sparse: takes no disk space
        fh.truncate(MAX_SUMMARY_BYTES + 1)
    with pytest.raises(SummaryError, match=r"is 200 MB, above the 200 MB limit"):
        RunSummary.load(path)


def test_a_json_file_that_is_no_summary_names_the_fix(tmp_path):
    foreign = tmp_path / "foreign.json"
    foreign.write_text("{}")
    with pytest.raises(SummaryError) as raised:
        RunSummary.load(foreign)
    message = str(raised.value)
    assert message.startswith(f"{foreign}: not an overhead-tui summary (no schema_version); fix: ")
    assert "\n" not in message
