"""The combined summary of ``overhead-tui interpreters``: its schema, loader and table."""

from __future__ import annotations

import json

import jsonschema
import pytest

from overhead_tui.analysis.interpreters import biggest_change
from overhead_tui.commands.interpreters import render_table
from overhead_tui.summary.breakdown import Breakdown
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.interpreters import (
    InterpreterRun,
    InterpretersSummary,
    PythonInfo,
    is_interpreters_summary,
    schema,
)
from overhead_tui.summary.measured import EventsPerFma
from overhead_tui.summary.validation import SummaryError
from tests.conftest import FIXTURES, scenario_result

RECORDED = FIXTURES / "interpreters_summary.json"
"""A real ``interpreters --python 3.12 --python 3.13`` run (python_naive, numpy_matmul)."""


def test_recorded_summary_matches_the_schema_and_loads():
    data = json.loads(RECORDED.read_text())
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.validate(data, schema())
    combined = InterpretersSummary.load(RECORDED)
    versions = [e.python.version[:4] for e in combined.interpreters]
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
    return scenario_result(
        name,
        rung=0,
        n=8,
        status="ok",
        median_s=1e-3,
        gflops=1.0,
        events_per_fma=EventsPerFma(bytecodes=19.0),
        breakdown=from_json(
            Breakdown, {"method": "model", "explained": 1.0, "layers": {}, "rows": rows}
        ),
    )


def _python(version, free_threaded=False, jit=None):
    return PythonInfo("CPython", version, "/p", free_threaded, jit)


def test_the_layer_that_changed_most_and_the_table():
    old, new = _result("python_naive", 10.0, 8.0), _result("python_naive", 7.5, 3.0)
    assert biggest_change(old, new) == ("boxing", -5.0)
    assert biggest_change(old, None) is None
    combined = InterpretersSummary(
        interpreters=[
            InterpreterRun(python=_python("3.11.7"), scenarios=[old]),
            InterpreterRun(python=_python("3.13.0", jit="enabled"), scenarios=[new]),
            InterpreterRun(
                python=_python("3.14.0", free_threaded=True),
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


def _model(name, rows, measured, bytecodes):
    result = _result(name, 0.0, 0.0)
    result.events_per_fma = EventsPerFma(bytecodes=bytecodes)
    result.breakdown = from_json(
        Breakdown,
        {
            "method": "model",
            "explained": sum(r["ns_per_fma"] for r in rows) / measured,
            "measured_ns_per_fma": measured,
            "layers": {},
            "rows": rows,
        },
    )
    return result


def _row(layer, unit, events, cost):
    return {
        "layer": layer,
        "unit": unit,
        "events_per_fma": events,
        "unit_cost": cost,
        "ns_per_fma": events * cost,
    }


def _pair_summary():
    from overhead_tui.summary.interpreters import InterpreterRun, InterpretersSummary

    old = _model(
        "python_naive",
        [
            _row("interpreter_dispatch", "ns/dispatch", 14.0, 2.0),
            _row("boxing", "ns/float", 2.0, 5.0),
            _row("container_access", "ns/load", 4.0, 1.0),
        ],
        measured=50.0,
        bytecodes=17.0,
    )
    new = _model(
        "python_naive",
        [
            _row("interpreter_dispatch", "ns/dispatch", 15.0, 1.5),
            _row("boxing", "ns/float", 1.0, 5.0),
            _row("call_overhead", "ns/call", 0.5, 4.0),
        ],
        measured=40.0,
        bytecodes=15.0,
    )
    return InterpretersSummary(
        interpreters=[
            InterpreterRun(python=_python("3.11.7"), scenarios=[old]),
            InterpreterRun(python=_python("3.13.0"), scenarios=[new]),
        ]
    )


def test_breakdown_pair_row_by_row_with_what_each_change_comes_from():
    from overhead_tui.analysis.interpreters import breakdown_pair

    pair = breakdown_pair(_pair_summary(), "python_naive", 0, 1)
    rows = {r.layer: r for r in pair.rows}
    assert list(rows) == ["interpreter_dispatch", "boxing", "container_access", "call_overhead"]
    dispatch = rows["interpreter_dispatch"]
    assert dispatch.delta_ns == pytest.approx(22.5 - 28.0)
    assert (dispatch.events_change, dispatch.unit_change) == ("more", "cheaper")
    assert dispatch.from_events + dispatch.from_unit_cost == pytest.approx(dispatch.delta_ns)
    boxing = rows["boxing"]
    assert (boxing.events_change, boxing.unit_change, boxing.delta_ns) == ("fewer", None, -5.0)
    assert rows["container_access"].events_change == "gone"
    assert rows["call_overhead"].events_change == "new"
    assert pair.measured_delta == -10.0 and (pair.bytecodes_a, pair.bytecodes_b) == (17.0, 15.0)
    assert pair.has_breakdowns
    assert [r.layer for r in pair.biggest(2)] == ["interpreter_dispatch", "boxing"]
    assert breakdown_pair(_pair_summary(), "python_naive", 0, 0).biggest() == []


def test_the_table_and_the_screen_share_one_derivation():
    from overhead_tui.analysis.interpreters import breakdown_pair, grid
    from overhead_tui.present.interpreters_text import cell_parts, pair_rows, pair_summary

    combined = _pair_summary()
    [(name, cells)] = grid(combined)
    assert name == "python_naive" and cells[0].change is None
    assert cells[1].change == ("interpreter_dispatch", -5.5)
    assert cell_parts(cells[1]) == ["1 GFLOP/s", "15 bc/FMA", "interpreter_dispatch -5.50 ns"]
    assert " · ".join(cell_parts(cells[1])) in render_table(combined)
    pair = breakdown_pair(combined, "python_naive", 0, 1)
    assert pair_rows(pair)[-1][0] == "measured" and pair_rows(pair)[-1][-1] == "-10.00"
    lines = pair_summary(pair)
    assert lines[0] == (
        "interpreter_dispatch (dispatch): -5.50 ns/FMA: more dispatches per FMA (14 → 15); "
        "cheaper per dispatch (2.00 → 1.50 ns)"
    )
    assert "boxing (float): -5.00 ns/FMA: fewer floats per FMA (2 → 1)" in lines


def test_a_probe_below_its_resolution_is_not_compared_as_a_cheaper_cost():
    from overhead_tui.analysis.interpreters import BreakdownPair, LayerDiff
    from overhead_tui.present.interpreters_text import pair_rows, why

    row = LayerDiff("container_access", "ns/load", 4.13, 4.13, 3.34, 0.0, 13.79, 0.0, False, True)
    assert row.unit_change is None
    assert why(row) == "per-load cost below the probe's resolution on B (not compared)"
    pair = BreakdownPair("python_naive", [row], None, None, None, None, None, None)
    assert pair_rows(pair)[0][5] == "<res."


def test_a_file_nested_too_deep_is_refused_with_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)  # json.loads: RecursionError
    assert not is_interpreters_summary(deep)
    with pytest.raises(SummaryError, match="is not JSON"):
        InterpretersSummary.load(deep)


def test_a_compiled_rung_counted_on_its_twin_shows_no_bytecodes():
    """cython_untyped's events are its Python twin's: the compiled code executes none of its
    19 bytecodes per multiply-add, so the grid shows none."""
    from overhead_tui.analysis.interpreters import grid_cell

    twin = _result("cython_untyped", 0.0, 8.0)
    twin.events_per_fma = EventsPerFma(bytecodes=19.0, python_twin=True)
    combined = InterpretersSummary(
        interpreters=[InterpreterRun(python=_python("3.11.7"), scenarios=[twin])]
    )
    assert grid_cell(combined, "cython_untyped", 0).bytecodes_per_fma is None
    assert "bc/FMA" not in render_table(combined)
