"""The typed payloads (profile, sweep, shapes) write exactly the JSON they read."""

from __future__ import annotations

import json

import pytest

from overhead_tui.summary.profile import ProfileRecord, PyspyResult, backend_from_json
from overhead_tui.summary.records import RunSummary
from tests.conftest import RECORDED_SUMMARY

FIXTURES = RECORDED_SUMMARY.parent
SUMMARIES = sorted(FIXTURES.glob("*summary*.json"))


def _profiles():
    data = json.loads(RECORDED_SUMMARY.read_text())
    return [s["profile"] for s in data["scenarios"] if s.get("profile")]


@pytest.mark.parametrize("path", [p for p in SUMMARIES if "interpreters" not in p.name])
def test_recorded_summaries_load_and_save_the_same_payloads(path):
    data = json.loads(path.read_text())
    summary = RunSummary.load(path)
    saved = json.loads(summary.dumps())
    for old, new in zip(data["scenarios"], saved["scenarios"], strict=True):
        assert new.get("profile") == old.get("profile")
    for key in ("sweep", "shapes"):
        assert saved.get(key) == data.get(key)


def test_a_recorded_profile_round_trips_and_is_typed():
    (profile,) = _profiles()
    record = ProfileRecord.from_json(profile)
    assert record.to_json() == profile
    assert isinstance(record.backends["pyspy"], PyspyResult)
    assert (
        record.backends["pyspy"].top_frames[0].self_share
        == profile["backends"]["pyspy"]["top_frames"][0]["self"]
    )


@pytest.mark.parametrize(
    "part",
    [
        {"status": "unavailable", "reason": "not installed", "fix": None, "version": None},
        {"status": "failed", "reason": "not profiled: it hung", "version": "1.0"},
        {"status": "failed", "reason": "no samples", "version": "1.0", "notes": ["blind"]},
        {
            "status": "ok",
            "version": "0.4",
            "native": True,
            "samples": 3,
            "native_fraction": None,
            "top_frames": [],
            "errors": None,
            "slowdown": 1.5,
        },
    ],
)
def test_backend_parts_keep_their_keys(part):
    assert backend_from_json("pyspy", part).to_json() == part


def test_a_profile_without_a_baseline_or_cancelled_keeps_its_keys():
    profile = {
        "scenario": "x",
        "n": 8,
        "dtype": "float64",
        "baseline_per_call_s": None,
        "baseline_source": "profile_run",
        "baseline_calls": None,
        "error": "did not run",
        "cancelled": True,
        "backends": {},
    }
    assert ProfileRecord.from_json(profile).to_json() == profile


def test_pyspy_stacks_stay_in_memory():
    from overhead_tui.profilers.pyspy import Frame, PyspySamples

    part = PyspySamples("ok", native=True, samples=1, stacks=(([Frame("f")], 1),))
    record = ProfileRecord("x", 8, "float64", {"pyspy": part})
    assert "stacks" not in json.dumps(record.to_json())
    assert part.stacks


def test_a_recorded_sweep_round_trips_and_is_typed():
    from overhead_tui.summary.sweep import SweepPoint, SweepRecord

    data = json.loads((FIXTURES / "sweep_summary.json").read_text())["sweep"]
    record = SweepRecord.from_json(data)
    assert record.to_json() == data
    assert all(isinstance(p, SweepPoint) for p in record.points)
    old = {k: v for k, v in data["points"][0].items() if k != "warnings"}  # before warnings
    assert SweepPoint.from_json(old).warnings == []


def test_a_recorded_batch_sweep_round_trips_is_typed_and_recomputes_the_same():
    from overhead_tui.analysis.shapes import measured_crossing, recompute
    from overhead_tui.summary.shapes import Crossing, Roofs, ShapePoint, ShapesRecord
    from overhead_tui.summary.sweep import BudgetedPoint, SweepPoint

    path = FIXTURES / "shapes_summary.json"
    data = json.loads(path.read_text())["shapes"]
    record = RunSummary.load(path).shapes
    assert isinstance(record, ShapesRecord) and record == ShapesRecord.from_json(data)
    assert record.to_json() == data
    assert all(isinstance(p, ShapePoint) for p in record.points)
    assert all(isinstance(c, Crossing) for c in record.crossing.values())
    assert all(isinstance(r, Roofs) for r in record.roofs.values())
    again = recompute(record)  # the points' figures as the sweep stored them
    assert again.points == record.points
    for name, crossing in again.crossing.items():
        roofs = record.roofs[name]
        assert crossing.predicted_m == record.crossing[name].predicted_m
        assert crossing.measured_m == measured_crossing(  # (the fixture predates its median)
            record.curve(name), record.k, record.n, 8, roofs.bandwidth_gbs
        )
    assert issubclass(ShapePoint, BudgetedPoint) and issubclass(SweepPoint, BudgetedPoint)


def _interpreters(name):
    return json.loads((FIXTURES / name).read_text())


def test_a_recorded_combined_summary_round_trips_and_is_typed():
    from overhead_tui.summary.interpreters import InterpretersSummary, Provisioned, PythonInfo
    from overhead_tui.summary.records import Settings

    data = _interpreters("interpreters_breakdowns.json")
    combined = InterpretersSummary.from_json(data)
    assert combined.to_json() == data
    assert isinstance(combined.settings, Settings) and combined.settings.python is None
    assert all(isinstance(e.python, PythonInfo) for e in combined.interpreters)
    assert [type(e.provision) for e in combined.interpreters] == [type(None), *[Provisioned] * 2]
    assert combined.interpreters[1].provision.installed["numpy"] == "2.4.6"


def test_an_older_combined_summary_keeps_its_values_and_gains_only_newer_settings():
    from overhead_tui.summary.interpreters import InterpretersSummary

    data = _interpreters("interpreters_summary.json")  # before settings had m, k and sets
    saved = InterpretersSummary.from_json(data).to_json()
    assert {k: v for k, v in saved["settings"].items() if k in data["settings"]} == (
        data["settings"]
    )
    assert set(saved["settings"]) - set(data["settings"]) == {"m", "k", "sets"}
    assert saved["settings"]["m"] is saved["settings"]["k"] is None
    for old, new in zip(data["interpreters"], saved["interpreters"], strict=True):
        assert {k: new[k] for k in old if k != "scenarios"} == {
            k: v for k, v in old.items() if k != "scenarios"
        }


def test_a_profile_in_a_combined_summary_is_read_as_its_record():
    """The combined summary read its scenarios without turning a ``profile`` into its record
    (and wrote a record back as its fields, not the profile's keys)."""
    from overhead_tui.summary.interpreters import InterpretersSummary

    data = _interpreters("interpreters_breakdowns.json")
    (profile,) = _profiles()
    data["interpreters"][0]["scenarios"][0]["profile"] = profile
    combined = InterpretersSummary.from_json(data)
    assert isinstance(combined.interpreters[0].scenarios[0].profile, ProfileRecord)
    assert json.loads(combined.dumps()) == data
