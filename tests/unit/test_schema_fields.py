"""The summary's JSON Schema is generated from the records (``scripts/gen_schema.py``): the
file is current, and it names exactly the fields of the records it describes."""

from __future__ import annotations

import dataclasses

import pytest

from overhead_tui.summary.codec import JSON_NAME
from overhead_tui.summary.records import MachineInfo, RunSummary, ScenarioResult, Settings
from overhead_tui.summary.validation import summary_schema


def _json_names(cls: type) -> set[str]:
    return {f.metadata.get(JSON_NAME, f.name) for f in dataclasses.fields(cls)}


def _node(path: str) -> dict:
    node = summary_schema()
    for part in path.split("/"):
        node = node[part]
    return node


LEGACY = {"limits"}
"""Keys only older versions wrote (``machine.limits``: schema_version 2), still accepted."""


@pytest.mark.parametrize(
    ("record", "path"),
    [
        (RunSummary, "properties"),
        (ScenarioResult, "$defs/ScenarioResult/properties"),
        (MachineInfo, "$defs/MachineInfo/properties"),
        (Settings, "$defs/Settings/properties"),
    ],
)
def test_the_schema_lists_every_field_of_the_record(record, path):
    properties = set(_node(path))
    fields = _json_names(record) - {"schema_version"}
    assert fields - properties == set(), "fields missing from summary/schema.json"
    assert properties - fields - {"schema_version"} - LEGACY == set(), "entries with no field"


def test_the_schema_file_is_generated_from_the_records():
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_schema", root / "scripts" / "gen_schema.py")
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    on_disk = (root / "overhead_tui" / "summary" / "schema.json").read_text(encoding="utf-8")
    assert on_disk == generator.text(), "summary/schema.json is stale: run `make docs`"


def test_the_generated_schema_keeps_the_checks_that_matter():
    import jsonschema

    checker = jsonschema.Draft202012Validator(summary_schema())
    good = {"schema_version": 4, "tool": {}, "created": "", "machine": {}, "settings": {},
            "scenarios": [{"name": "x", "title": "x", "rung": 1, "layers": [], "removes": [],
                           "n": 8, "dtype": "float64", "flops": 1024, "status": "ok"}]}  # fmt: skip
    assert checker.is_valid(good)
    for broken in (
        {**good, "scenarios": [{**good["scenarios"][0], "status": "fast"}]},  # not a status
        {**good, "scenarios": [{**good["scenarios"][0], "median_s": -1.0}]},  # negative time
        {**good, "scenarios": [{**good["scenarios"][0], "n": "8"}]},  # a string for a number
        {k: v for k, v in good.items() if k != "machine"},  # a required key missing
    ):
        assert not checker.is_valid(broken)
