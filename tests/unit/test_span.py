"""The span on one line: pure Python → the dense kernel → the engine (analysis.span)."""

from __future__ import annotations

from overhead_tui.analysis.span import span
from overhead_tui.present.span_text import span_text
from overhead_tui.summary.limits import PrecisionPeak
from tests.conftest import FIXTURES, RECORDED_SUMMARY, fixture_summary


def test_the_span_runs_from_the_first_pure_python_rung_to_the_engine():
    """The Xeon's default ladder (../shared/data/intel-amx-kvm167): pure Python is
    python_naive (the first rung with bytecode and no numpy: not numpy_scalar_loop, slower
    but numpy's), then numpy_matmul, then AMX BF16's one-core peak in bfloat16, not AMX INT8's
    larger GOP/s."""
    summary = fixture_summary(FIXTURES / "intel-amx-bfloat16.summary.json")
    float64 = fixture_summary(RECORDED_SUMMARY)
    float64.machine.precision_peaks = summary.machine.precision_peaks
    found = span(float64)
    assert found.python is not None and found.python.what == "python_naive"
    assert found.dense is not None and found.dense.what == "numpy_matmul"
    assert found.engine is not None and found.engine.what == "amx_bf16"
    assert found.engine.dtype == "bfloat16"
    text = span_text(found)
    assert text.startswith("span: pure Python python_naive ")
    assert " → dense kernel numpy_matmul " in text and "AMX BF16" in text and "bfloat16" in text
    factor = found.factor(found.engine)
    assert factor == found.engine.rate / found.python.rate


def test_without_lower_precisions_the_engine_is_the_float64_peak_and_int8_only_alone():
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.machine.precision_peaks = []
    found = span(summary)
    assert found.engine is None or found.engine.dtype == "float64"
    summary.machine.precision_peaks = [PrecisionPeak("amx_int8", "OP", one_core=6000.0)]
    assert span(summary).engine.what == "amx_int8"  # the only family measured
    summary.scenarios = [r for r in summary.scenarios if r.name != "python_naive"]
    assert span(summary).python.what == "python_hoisted"  # the next rung of pure Python
    summary.scenarios = [r for r in summary.scenarios if r.name.startswith("numpy")]
    assert span(summary).python is None and span_text(span(summary)) is None


def test_a_lower_precision_table_gives_each_rung_its_share_of_its_own_roof():
    """The CLI's bfloat16 table had no "% of peak": each rung now against its own family's
    roof (the Xeon's recorded bfloat16 ladder); a float64 table keeps × dense instead."""
    from overhead_tui.present.tables import peak_lines, render_table

    summary = fixture_summary(FIXTURES / "intel-amx-bfloat16.summary.json")
    lines = peak_lines(summary)
    assert "c_avx512_dot: 94.6% of its roof (116 GFLOP/s, precision_peak)" in lines
    assert any(line.startswith("c_amx_tiles: 15.6% of its roof (3,480") for line in lines)
    assert "c_amx_tiles: 15.6% of its roof" in render_table(summary)
    assert peak_lines(fixture_summary(RECORDED_SUMMARY)) == []
