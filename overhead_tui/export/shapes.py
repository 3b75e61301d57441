"""The Markdown view of a batch sweep (``RunSummary.shapes``): the points and crossings
(rows from ``present.shapes_text``) and the reference machines' predicted batches (labelled
as prediction)."""

from __future__ import annotations

from overhead_tui.analysis.shapes import fmt_batch, large_weights_crossing, reference_crossings
from overhead_tui.machine.reference import ReferenceMachine
from overhead_tui.present.format import markdown_table
from overhead_tui.present.shapes_text import CROSSING_HEADER, HEADER, crossing_rows, point_rows
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops


def render_shapes_markdown(summary: RunSummary, machines: list[ReferenceMachine]) -> str:
    """The sweep as Markdown: points, crossings and, as *prediction*, the reference machines'
    batches at which the same product becomes compute-bound."""
    if not summary.shapes:
        return ""
    return "\n".join(shapes_markdown_lines(summary, machines)) + "\n"


def shapes_markdown_lines(summary: RunSummary, machines: list[ReferenceMachine]) -> list[str]:
    """The Markdown section of a batch sweep (empty without one)."""
    record = summary.shapes
    if record is None:
        return []
    lines = [
        "## From GEMV to GEMM: batch sweep",
        "",
        f"C (m×{record.n}) = A (m×{record.k}) · B ({record.k}×{record.n}), {record.dtype}. "
        f"{record.size_reason}".rstrip(),
        "",
        *markdown_table(HEADER, point_rows(record)),
        "",
        "### Crossing (measured on this machine)",
        "",
        *markdown_table(CROSSING_HEADER, crossing_rows(record)),
        "",
        "Measured m: the first batch from which on every point's share of the bandwidth "
        "slope is at most half of that at the three smallest batches (their median). "
        "Predicted m: where the arithmetic intensity 2mkn / (itemsize·(mk + kn + mn)) reaches "
        "the ridge point (peak / bandwidth) of the scenario's roofs. Modelled m: the measured "
        "rule applied to a modelled call, packing all of B at the measured packing rate plus "
        "the micro-kernel on whole blocks of MR rows at the peak.",
    ]
    rows = reference_crossings(machines, record.k, record.n, record.dtype)
    if rows:
        lines += [
            "",
            "### Reference machines (prediction from published figures, not measured)",
            "",
            *markdown_table(
                (
                    "machine",
                    "precision",
                    "peak GFLOP/s",
                    "GB/s",
                    "ridge flop/B",
                    f"predicted m (k = n = {record.n})",
                    "predicted m (k = n → ∞)",
                ),
                [
                    (
                        r.machine,
                        r.precision,
                        fmt_gflops(r.peak_gflops),
                        f"{r.bandwidth_gbs:g}",
                        f"{r.ridge:.3g}",
                        fmt_batch(r.predicted_m) if r.predicted_m else "never",
                        fmt_batch(large_weights_crossing(_itemsize(r.precision), r.ridge)),
                    )
                    for r in rows
                ],
            ),
        ]
    return lines


def _itemsize(precision: str) -> int:
    return {"float64": 8, "float32": 4, "float16": 2}[precision]
