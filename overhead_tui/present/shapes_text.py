"""Text views of a batch sweep (``RunSummary.shapes``): the table of points and the
crossings, as rows (shared by stdout, the Markdown export and the app's *Shapes* screen) and
as aligned text (the command's stdout)."""

from __future__ import annotations

from overhead_tui.analysis.roofline import ridge_point
from overhead_tui.analysis.shapes import fmt_batch
from overhead_tui.present.format import aligned_lines
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.shapes import ShapesRecord
from overhead_tui.summary.units import fmt_gflops

HEADER = ("scenario", "m", "status", "median", "GFLOP/s", "flop/B", "roof GFLOP/s", "bound")


def _seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} µs"


def point_rows(record: ShapesRecord) -> list[tuple[str, ...]]:
    """One row per point (scenario, m, status, median, GFLOP/s, intensity, attainable,
    bound) as text, in sweep order; a ``*`` marks the measured crossing's batch, and a point
    more than :data:`ABOVE_ROOF` above its roof says so in its bound ("memory, 1.3× above
    it": the data sat in a cache the bandwidth roof does not count, or the roof was measured
    low)."""
    rows: list[tuple[str, ...]] = []
    for point in record.points:
        crossing = record.crossing.get(point.scenario)
        mark = " *" if crossing is not None and crossing.measured_m == point.m else ""
        bound = point.bound or "—"
        if point.gflops and point.attainable_gflops:
            over = point.gflops / point.attainable_gflops
            bound += f", {over:.2f}× above it" if over > ABOVE_ROOF else ""
        rows.append(
            (
                point.scenario,
                f"{point.m}{mark}",
                point.status,
                _seconds(point.median_s),
                fmt_gflops(point.gflops) if point.gflops else "—",
                f"{point.intensity:.3g}",
                fmt_gflops(point.attainable_gflops) if point.attainable_gflops else "—",
                bound,
            )
        )
    return rows


ABOVE_ROOF = 1.05
"""A point above 1.05 × its roof (within it: noise) is marked in its bound column."""


def crossing_rows(record: ShapesRecord) -> list[tuple[str, ...]]:
    """Per scenario: roofs (threads, peak, bandwidth, ridge), measured and predicted crossing,
    the climb from the smallest to the largest batch, why it stopped."""
    rows: list[tuple[str, ...]] = []
    for name in record.scenarios():
        roofs = record.roofs.get(name)
        ridge = ridge_point(roofs.peak_gflops, roofs.bandwidth_gbs) if roofs else None
        crossing = record.crossing.get(name)
        curve = record.curve(name)
        climb = (
            f"{curve[-1][1] / curve[0][1]:.1f}× (m {curve[0][0]}→{curve[-1][0]})"
            if len(curve) >= 2
            else "—"
        )
        rows.append(
            (
                name,
                roofs.threads if roofs else "—",
                fmt_gflops(roofs.peak_gflops) if roofs and roofs.peak_gflops else "—",
                f"{roofs.bandwidth_gbs:.3g}" if roofs and roofs.bandwidth_gbs else "—",
                f"{ridge:.3g}" if ridge else "—",
                fmt_batch(crossing.measured_m) if crossing else "—",
                fmt_batch(crossing.predicted_m) if crossing else "—",
                fmt_batch(crossing.modelled_m) if crossing else "—",
                climb,
                record.stopped.get(name, ""),
            )
        )
    return rows


CROSSING_HEADER = (
    "scenario",
    "threads",
    "peak GFLOP/s",
    "GB/s",
    "ridge flop/B",
    "measured m",
    "predicted m",
    "modelled m",
    "climb",
    "stopped",
)


def render_shapes_table(summary: RunSummary) -> str:
    """The sweep as aligned text: the points, then the crossings (stdout of the command)."""
    record = summary.shapes
    if record is None:
        return "no shapes sweep in this summary"
    lines = [
        f"C (m×{record.n}) = A (m×{record.k}) · B ({record.k}×{record.n}), {record.dtype}",
        *aligned_lines([HEADER, *point_rows(record)], {0, 2, 7}),
        "",
        *aligned_lines([CROSSING_HEADER, *crossing_rows(record)], {0, 1, 9}),
        "  measured m (marked *): the first batch from which on every point's share of the "
        "bandwidth slope is at most half of that at the three smallest batches (their median)",
        "  predicted m: where the intensity reaches the ridge (peak / bandwidth)",
        "  modelled m: the measured rule applied to a modelled call: packing all of B (at the "
        "measured packing rate) plus the micro-kernel on whole blocks of MR rows (MR: the rows "
        "of c_blocked_packed's register block here) at the peak",
    ]
    failed = [p for p in record.points if p.status != "ok"]
    lines += [f"  {p.scenario} at m={p.m}: {p.status} — {p.error}" for p in failed]
    return "\n".join(lines)
