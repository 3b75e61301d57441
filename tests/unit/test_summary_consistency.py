"""A summary that contradicts itself is refused on load, naming the record and the field: a
hand-edited file is no measurement (a zero median divided compare by zero; a duplicated rung
showed one copy's speed and hid the other)."""

from __future__ import annotations

import json

import pytest

from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.validation import SummaryError
from tests.conftest import RECORDED_SUMMARY_V3


def _edited(tmp_path, edit):
    data = json.loads(RECORDED_SUMMARY_V3.read_text(encoding="utf-8"))
    edit(data)
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _first_ok(data):
    return next(s for s in data["scenarios"] if s["status"] == "ok")


def _set(key, value):
    return lambda data: _first_ok(data).__setitem__(key, value)


EDITS = {
    "a zero median": (_set("median_s", 0.0), "median_s: status ok without a speed"),
    "an ok record without a median": (_set("median_s", None), "status ok without a speed"),
    "a median outside its samples": (_set("samples_s", [1.0, 2.0, 3.0]), "outside its samples"),
    "no flops": (_set("flops", 0), "flops: 0 is below 1"),
    "a negative order": (_set("n", -48), "n: -48 is below 1"),
    "an unknown dtype": (_set("dtype", "complex128"), "'complex128' is not one of float64"),
    "a rung twice": (
        lambda data: data["scenarios"].append(dict(_first_ok(data))),
        "a second record of",
    ),
}


@pytest.mark.parametrize("edit, said", EDITS.values(), ids=EDITS.keys())
def test_a_self_contradicting_summary_is_refused_with_the_field_named(tmp_path, edit, said):
    with pytest.raises(SummaryError, match="invalid summary at scenarios") as caught:
        RunSummary.load(_edited(tmp_path, edit))
    assert said in str(caught.value) and "fix: give a summary.json" in str(caught.value)


def test_the_recorded_summaries_are_consistent(tmp_path):
    """The check passes the files the tool wrote (it would refuse them all if it were wrong)."""
    summary = RunSummary.load(_edited(tmp_path, lambda data: None))
    assert summary.scenarios and any(s.has_speed for s in summary.scenarios)
