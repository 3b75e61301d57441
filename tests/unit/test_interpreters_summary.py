"""The combined summary of ``overhead-tui interpreters``: its schema, loader and table."""

from __future__ import annotations

import json

import jsonschema
import pytest

from overhead_tui.commands.interpreters import render_table
from overhead_tui.summary.interpreters import (
    InterpreterRun,
    InterpretersSummary,
    biggest_change,
    schema,
)
from overhead_tui.summary.records import ScenarioResult, SummaryError
from tests.conftest import FIXTURES

RECORDED = FIXTURES / "interpreters_summary.json"
"""A real ``interpreters --python 3.12 --python 3.13`` run (python_naive, numpy_matmul)."""


def test_recorded_summary_matches_the_schema_and_loads():
    data = json.loads(RECORDED.read_text())
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(data, schema())
    combined = InterpretersSummary.load(RECORDED)
    versions = [e.python["version"][:4] for e in combined.interpreters]
    assert versions == ["3.11", "3.12", "3.13"]
    assert all(e.run_dir for e in combined.interpreters)
    # written back unchanged in content
    assert InterpretersSummary.from_json(json.loads(combined.dumps())).to_json() == (
        combined.to_json()
    )


def test_schema_refuses_a_broken_summary(tmp_path):
    data = json.loads(RECORDED.read_text())
    del data["interpreters"][1]["python"]["free_threaded"]
    with pytest.raises(SummaryError, match=r"interpreters\.1\.python"):
        InterpretersSummary.from_json(data)
    with pytest.raises(SummaryError, match="not an overhead-tui interpreters summary"):
        InterpretersSummary.from_json({"scenarios": []})
    bad = tmp_path / "x.json"
    bad.write_text("{")
    with pytest.raises(SummaryError, match="not JSON"):
        InterpretersSummary.load(bad)


def _result(name, dispatch_ns, boxing_ns):
    rows = [
        {"layer": "interpreter_dispatch", "ns_per_fma": dispatch_ns},
        {"layer": "boxing", "ns_per_fma": boxing_ns},
    ]
    return ScenarioResult(
        name=name,
        title=name,
        rung=0,
        layers=[],
        removes=[],
        n=8,
        dtype="float64",
        flops=1024,
        status="ok",
        median_s=1e-3,
        gflops=1.0,
        events_per_fma={"bytecodes": 19.0},
        breakdown={"method": "model", "explained": 1.0, "layers": {}, "rows": rows},
    )


def test_the_layer_that_changed_most_and_the_table():
    old, new = _result("python_naive", 10.0, 8.0), _result("python_naive", 7.5, 3.0)
    assert biggest_change(old, new) == ("boxing", -5.0)
    assert biggest_change(old, None) is None
    python = {"implementation": "CPython", "executable": "/p", "free_threaded": False}
    combined = InterpretersSummary(
        interpreters=[
            InterpreterRun(python={**python, "version": "3.11.7", "jit": None}, scenarios=[old]),
            InterpreterRun(
                python={**python, "version": "3.13.0", "jit": "enabled"}, scenarios=[new]
            ),
            InterpreterRun(
                python={**python, "version": "3.14.0", "free_threaded": True, "jit": None},
                error="cannot install numpy (offline)",
            ),
        ]
    )
    table = render_table(combined)
    header, _, row = table.splitlines()[:3]
    assert "CPython 3.11.7 (baseline)" in header and "CPython 3.13.0 jit on" in header
    assert "CPython 3.14.0 free-threaded" in header
    assert "19 bc/FMA" in row and "boxing -5.00 ns" in row and "not run" in row
    assert "cannot install numpy (offline)" in table
