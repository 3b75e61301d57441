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
    assert text.startswith("span (× pure Python): python_naive ")
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


def test_an_engine_rung_at_its_own_precision_sits_beside_the_float64_ladder():
    """The Xeon's c_amx_tiles (bfloat16, measured) beside its float64 ladder, as a float64 run
    now runs it (``engine.plan.rung_dtype``): its speed on the span line, its dtype in the
    × dense cell, and no ratio, waterfall step or roofline point across dtypes."""
    from overhead_tui.analysis.derive import compute_vs_dense
    from overhead_tui.analysis.roofline import roofline
    from overhead_tui.analysis.waterfall import waterfall
    from overhead_tui.present.ladder_rows import ladder_row
    from overhead_tui.present.tables import render_table

    amx = fixture_summary(FIXTURES / "intel-amx-bfloat16.summary.json").scenario("c_amx_tiles")
    assert amx.has_speed and amx.dtype == "bfloat16"
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.scenarios.append(amx)
    compute_vs_dense(summary)
    assert amx.vs_dense is None
    assert all(r.vs_dense is not None for r in summary.scenarios if r.has_speed and r is not amx)
    found = span(summary)
    assert found.engine_rung is not None and found.engine_rung.what == "c_amx_tiles"
    assert found.engine_rung.rate == amx.gflops and found.engine_rung.dtype == "bfloat16"
    text = span_text(found)
    assert " → lower precision c_amx_tiles " in text and " GFLOP/s bfloat16 (" in text
    row = ladder_row(amx, found.python, "float64")
    assert row[5] == "bfloat16" and row[6] == "—"  # × dense names its dtype; × Python blank
    assert "bfloat16" in render_table(summary)
    steps = waterfall(summary)
    assert steps and all("c_amx_tiles" not in (s.from_, s.to) for s in steps)
    assert "c_amx_tiles" not in {p.name for p in roofline(summary).points}


def test_a_float32_run_ends_at_the_float32_peak_not_the_float64_one():
    from dataclasses import replace

    from overhead_tui.summary.limits import PeakEntry

    summary = fixture_summary(RECORDED_SUMMARY)
    summary.machine.precision_peaks = []
    summary.settings = replace(summary.settings, dtype="float32")
    summary.machine.peak_gflops = {
        "float64": PeakEntry(one_core=50.0),
        "float32": PeakEntry(one_core=100.0),
    }
    engine = span(summary).engine
    assert engine is not None and (engine.what, engine.rate, engine.dtype) == (
        "float32 SIMD",
        100.0,
        "float32",
    )


def test_a_sweep_row_of_a_rung_at_its_own_precision_names_its_dtype():
    from overhead_tui.present.sweep_rows import sweep_rows
    from overhead_tui.summary.sweep import SweepPoint, SweepRecord

    summary = fixture_summary(RECORDED_SUMMARY)
    points = [
        SweepPoint(scenario="numpy_matmul", status="ok", gflops=2.5, n=16, dtype="float64"),
        SweepPoint(scenario="own", status="ok", gflops=0.4, n=16, dtype="float16"),
        SweepPoint(scenario="old", status="ok", gflops=0.4, n=16),  # a file before dtype
    ]
    summary.sweep = SweepRecord(dtype="float64", budget_s=20.0, points=points, sizes=[16])
    labels = [r.label for r in sweep_rows(summary) if r.scenario in ("numpy_matmul", "own", "old")]
    assert labels == ["numpy_matmul", "own (float16)", "old"]
