"""The summary's JSON Schema names exactly the fields of the records it describes: a field
added to a record without its schema entry (or the reverse) fails here, not in a user's file."""

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
        (ScenarioResult, "$defs/scenario/properties"),
        (MachineInfo, "properties/machine/properties"),
        (Settings, "properties/settings/properties"),
    ],
)
def test_the_schema_lists_every_field_of_the_record(record, path):
    properties = set(_node(path))
    fields = _json_names(record) - {"schema_version"}
    assert fields - properties == set(), "fields missing from summary/schema.json"
    assert properties - fields - {"schema_version"} - LEGACY == set(), "entries with no field"
