"""Labels say what was measured: where counts were made, "first call" vs "JIT compile"."""

from __future__ import annotations

from overhead_tui.present.format import compiles, counts_label, first_call_label
from overhead_tui.summary.measured import BuildInfo
from overhead_tui.summary.records import ScenarioResult
from tests.conftest import FIXTURES, fixture_summary


def _result(source: str = "", build=None, bytecode_n=20, n=128) -> ScenarioResult:
    return ScenarioResult(
        name="r",
        title="r",
        rung=1,
        layers=[],
        removes=[],
        n=n,
        dtype="float64",
        flops=2 * n**3,
        kernel_source=source,
        build=build,
        bytecode_n=bytecode_n,
    )


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
    assert "timed n = 128" in label
    assert not label.startswith("per multiply-add at n = 128")


def test_a_rung_faster_than_the_dense_kernel_is_explained_not_hidden():
    from overhead_tui.present.format import below_dense_note

    summary = fixture_summary(FIXTURES / "recorded_summary.json")
    assert below_dense_note(summary) is None or "below 1 × dense" in below_dense_note(summary)
    summary.scenarios[0].vs_dense = 0.8
    note = below_dense_note(summary)
    assert note is not None and f"{summary.scenarios[0].name} (0.8×)" in note
    assert "the host slowed the dense kernel's samples" in note
