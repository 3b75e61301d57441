"""The span of a run as one line for the ladder screen, the CLI's table and the report."""

from __future__ import annotations

from overhead_tui.analysis.roofline import FAMILY_LABELS
from overhead_tui.analysis.span import Span, Step
from overhead_tui.summary.units import fmt_gflops


def _factor(span: Span, step: Step) -> str:
    factor = span.factor(step)
    return f" ({factor:,.0f}×)" if factor is not None and factor >= 1 else ""


def _unit(step: Step) -> str:
    return "GOP/s" if step.dtype == "int8" else "GFLOP/s"


def span_text(span: Span) -> str | None:
    """``span (× pure Python): python_naive 0.045 GFLOP/s → dense kernel numpy_matmul 99
    (2,200×) → lower precision c_amx_tiles 460 GFLOP/s bfloat16 (10,000×) → peak AMX BF16
    3,480 GFLOP/s, one core (77,000×)``; None without pure Python or anything above it.
    A step in another precision than pure Python's names its dtype."""
    python = span.python
    if python is None or (span.dense is None and span.engine is None and not span.engine_rung):
        return None
    parts = [f"span (× pure Python): {python.what} {fmt_gflops(python.rate)} GFLOP/s"]
    if (dense := span.dense) is not None:
        precision = "" if dense.dtype == python.dtype else f" {dense.dtype}"
        parts.append(
            f"dense kernel {dense.what} {fmt_gflops(dense.rate)}{precision}{_factor(span, dense)}"
        )
    if (rung := span.engine_rung) is not None:
        parts.append(
            f"lower precision {rung.what} {fmt_gflops(rung.rate)} {_unit(rung)} {rung.dtype}"
            f"{_factor(span, rung)}"
        )
    if (engine := span.engine) is not None:
        label = FAMILY_LABELS.get(engine.what, engine.what)
        precision = "" if engine.dtype in label else f" {engine.dtype}"
        parts.append(
            f"peak {label} {fmt_gflops(engine.rate)} {_unit(engine)}{precision}, one core"
            f"{_factor(span, engine)}"
        )
    return " → ".join(parts)
