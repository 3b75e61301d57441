"""Labels say what was measured: where counts were made, "first call" vs "JIT compile"."""

from __future__ import annotations

from overhead_tui.present.bytecode_text import (
    NOTE_WIDTH,
    bytecode_notes,
    counts_label,
    per_fma_header,
)
from overhead_tui.present.format import compiles, first_call_label
from overhead_tui.summary.measured import BuildInfo, BytecodeLine, EventsPerFma
from overhead_tui.summary.records import ScenarioResult
from tests.conftest import FIXTURES, fixture_summary, scenario_result


def _result(source: str = "", build=None, bytecode_n=20, n=128) -> ScenarioResult:
    return scenario_result(n=n, kernel_source=source, build=build, bytecode_n=bytecode_n)


def test_pure_python_and_numpy_rungs_say_first_call_not_jit():
    python = _result("def kernel(a, b):\n    return [[sum(x) for x in a]]\n")
    numpy = _result("import numpy as np\ndef kernel(a, b):\n    return a @ b\n")
    for result in (python, numpy):
        assert not compiles(result)
        assert "JIT" not in first_call_label(result)
        assert "nothing compiled" in first_call_label(result)


def test_jit_rungs_say_jit_compile_and_c_rungs_that_they_were_built_before():
    assert "JIT compile" in first_call_label(_result("from numba import njit\n@njit\n"))
    built = first_call_label(_result("", build=BuildInfo(compiler="cc")))
    assert "JIT" not in built and "C built in set-up" in built


def test_bytecode_label_names_the_counted_n_and_the_timed_n():
    label = counts_label(_result(bytecode_n=20, n=128))
    assert "counted at n = 20" in label
    assert "timed at n = 128" in label
    assert not label.startswith("per multiply-add at n = 128")


def test_bytecode_rows_say_the_n_they_were_counted_at_before_the_table():
    """Rows counted at n = 20 (a loop header's 0.05 per FMA) never read as measured at the timed
    n = 128: the column names its n, the lines before the table say what it does to a loop's
    rows and what the model charges at 128, each short enough for an 80-column terminal."""
    result = _result(bytecode_n=20, n=128)
    result.events_per_fma = EventsPerFma(dispatches=13.1, n=128, counted_sizes=[8, 12, 16, 20])
    result.bytecode = [BytecodeLine("kernel", 226, "FOR_ITER", "to 340", 0.0525, 0.0)]
    assert per_fma_header(result) == "per FMA\nat n = 20"
    notes = bytecode_notes(result)
    assert notes[0] == "counted at n = 20 (per FMA at that n); the rung was timed at n = 128"
    assert notes[1] == "a loop row run n² times is 1/n per FMA: 0.05 here, 0.00781 at n = 128"
    assert notes[2] == "the model charges 13.1 dispatches per FMA at n = 128 (extrapolated)"
    result.bytecode = [BytecodeLine("kernel", 12, "LOAD_FAST", "a", 1.0, 0.5)]
    assert bytecode_notes(result)[-1].startswith("+: a superinstruction's second half (0.5")
    for n, counted in ((128, 20), (4096, 20), (1024, None)):
        wide = _result(bytecode_n=counted, n=n)
        wide.events_per_fma = EventsPerFma(dispatches=123.456)
        wide.bytecode = [BytecodeLine("kernel", 12, "LOAD_FAST", "a", 1.0, 0.123)]
        assert all(len(line) <= NOTE_WIDTH < 80 for line in bytecode_notes(wide)), n


def test_a_python_twins_bytecode_says_the_compiled_rung_dispatches_none_of_it():
    result = _result(bytecode_n=20, n=128)
    result.events_per_fma = EventsPerFma(dispatches=14.1, python_twin=True)
    notes = bytecode_notes(result)
    assert any("Python twin" in line for line in notes)
    assert not any("the model charges" in line for line in notes)
    assert all(len(line) <= NOTE_WIDTH for line in notes)


def test_bytecode_counted_at_the_timed_n_needs_no_second_n():
    result = _result(bytecode_n=16, n=16)
    assert per_fma_header(result) == "per FMA"
    assert bytecode_notes(result) == ["counted at the timed n = 16 (per FMA)"]


def test_a_rung_faster_than_the_dense_kernel_is_explained_not_hidden():
    from overhead_tui.present.ladder_rows import below_dense_note

    summary = fixture_summary(FIXTURES / "recorded_summary.json")
    assert below_dense_note(summary) is None or "below 1 × dense" in below_dense_note(summary)
    summary.scenarios[0].vs_dense = 0.8
    note = below_dense_note(summary)
    assert note is not None and f"{summary.scenarios[0].name} (0.8×)" in note
    assert "the host slowed the dense kernel's samples" in note
