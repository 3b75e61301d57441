"""The span of a run as one line for the ladder screen, the CLI's table and the report."""

from __future__ import annotations

from overhead_tui.analysis.roofline import FAMILY_LABELS
from overhead_tui.analysis.span import Span, Step
from overhead_tui.summary.units import fmt_gflops


def _factor(span: Span, step: Step) -> str:
    factor = span.factor(step)
    return f" ({factor:,.0f}× pure Python)" if factor is not None and factor >= 1 else ""


def span_text(span: Span) -> str | None:
    """``span: pure Python python_naive 0.045 GFLOP/s → dense kernel numpy_matmul 99
    (2,200×) → engine AMX BF16 3,480 bfloat16, one core (77,000×)``; None without pure
    Python or anything above it."""
    python = span.python
    if python is None or (span.dense is None and span.engine is None):
        return None
    parts = [f"span: pure Python {python.what} {fmt_gflops(python.rate)} GFLOP/s"]
    if (dense := span.dense) is not None:
        precision = "" if dense.dtype == python.dtype else f" {dense.dtype}"
        parts.append(
            f"dense kernel {dense.what} {fmt_gflops(dense.rate)}{precision}{_factor(span, dense)}"
        )
    if (engine := span.engine) is not None:
        label = FAMILY_LABELS.get(engine.what, engine.what)
        unit = "GOP/s" if engine.dtype == "int8" else "GFLOP/s"
        precision = "" if engine.dtype in label else f" {engine.dtype}"
        parts.append(
            f"peak {label} {fmt_gflops(engine.rate)} {unit}{precision}, one core"
            f"{_factor(span, engine)}"
        )
    return " → ".join(parts)
