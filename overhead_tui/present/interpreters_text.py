"""Text views of a combined interpreters summary (``summary.interpreters``): the rung ×
interpreter table (stdout and ``interpreters --markdown``) and the side-by-side breakdown rows
the app's *Interpreters* screen shows.  The figures come from ``analysis.interpreters``
(:func:`grid`, :func:`breakdown_pair`); this module only formats them.
"""

from __future__ import annotations

from overhead_tui.analysis.interpreters import BreakdownPair, GridCell, LayerDiff, grid
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.summary.units import fmt_gflops, fmt_number

CELL_LEGEND = (
    "Cells: GFLOP/s · bytecodes executed per multiply-add · the layer whose modelled cost "
    "per multiply-add changed most against the baseline (ns; negative = cheaper)."
)


def column_titles(combined: InterpretersSummary) -> list[str]:
    """One title per interpreter, the first marked ``(baseline)``."""
    return [
        entry.label + (" (baseline)" if i == 0 else "")
        for i, entry in enumerate(combined.interpreters)
    ]


def fmt_change(change: tuple[str, float] | None) -> str:
    """``boxing -5.00 ns`` (the layer that changed most and by how much), or ``""``."""
    if change is None:
        return ""
    layer, delta = change
    return f"{layer} {delta:+.2f} ns"


def cell_parts(cell: GridCell) -> list[str]:
    """A grid cell's figures as text: GFLOP/s, bytecodes per FMA, the biggest layer change
    (each present only when known); a status or ``—`` when the rung has no speed there."""
    if not cell.ran:
        return ["not run"]
    if cell.result is None:
        return ["—"]
    if cell.gflops is None:
        return [cell.result.status]
    parts = [f"{fmt_gflops(cell.gflops)} GFLOP/s"]
    if cell.bytecodes_per_fma is not None:
        parts.append(f"{fmt_number(cell.bytecodes_per_fma)} bc/FMA")
    if cell.change is not None:
        parts.append(fmt_change(cell.change))
    return parts


def render_table(combined: InterpretersSummary) -> str:
    """The rung × interpreter Markdown table, then the legend and notes (why an interpreter
    did not run, packages installed at another version or missing, rungs not ok)."""
    headers = ["rung", *column_titles(combined)]
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    for name, cells in grid(combined):
        lines.append("| " + " | ".join([name, *(" · ".join(cell_parts(c)) for c in cells)]) + " |")
    lines.append("")
    lines.append(CELL_LEGEND)
    for entry in combined.interpreters:
        if entry.error:
            lines.append(f"- {entry.label}: not run: {entry.error}")
        env = entry.provision
        if env is not None:
            for pkg, wanted in env.nearest.items():
                lines.append(f"- {entry.label}: {pkg} {env.installed.get(pkg)} instead of {wanted}")
            for pkg, why in env.missing.items():
                lines.append(f"- {entry.label}: {pkg} missing: {why}")
        for s in entry.scenarios:
            if s.status not in ("ok",):
                lines.append(f"- {entry.label}: {s.name}: {s.status} — {s.error}")
    return "\n".join(lines)


PAIR_HEADER = (
    "layer",
    "per",
    "A ev/FMA",
    "B ev/FMA",
    "A ns/ev",
    "B ns/ev",
    "A ns/FMA",
    "B ns/FMA",
    "B−A ns/FMA",
)
"""Columns of :func:`pair_rows`: events per multiply-add (ev/FMA), modelled ns per event
(ns/ev) and ns per multiply-add on interpreters A and B, and the difference."""


def _num(value: float | None) -> str:
    return "—" if value is None else fmt_number(value)


def _ns(value: float | None, below: bool = False) -> str:
    if below:
        return "<res."  # the probe measured ≤ 0: below its resolution, counted as 0
    return "—" if value is None else f"{value:.2f}"


def pair_rows(pair: BreakdownPair) -> list[tuple[str, ...]]:
    """One row per breakdown row (:data:`PAIR_HEADER`), then ``measured`` (ns per FMA)."""
    rows: list[tuple[str, ...]] = [
        (
            row.layer,
            row.unit.removeprefix("ns/"),
            _num(row.events_a),
            _num(row.events_b),
            _ns(row.unit_a, row.below_a),
            _ns(row.unit_b, row.below_b),
            _ns(row.ns_a),
            _ns(row.ns_b),
            f"{row.delta_ns:+.2f}",
        )
        for row in pair.rows
    ]
    delta = pair.measured_delta
    rows.append(
        (
            "measured",
            "",
            _num(pair.bytecodes_a) + " bc",
            _num(pair.bytecodes_b) + " bc",
            "",
            "",
            _ns(pair.measured_a),
            _ns(pair.measured_b),
            "—" if delta is None else f"{delta:+.2f}",
        )
    )
    return rows


def _plural(word: str) -> str:
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


def why(row: LayerDiff) -> str:
    """What changed in one row (:attr:`LayerDiff.events_change`, :attr:`~LayerDiff.unit_change`):
    ``fewer dispatches per FMA (14.1 → 13.1)``, ``cheaper per float (5.02 → 3.10 ns)``, both, or
    ``""``."""
    what = row.unit.removeprefix("ns/") or "event"
    parts = []
    change = row.events_change
    if change in ("fewer", "more"):
        counts = f"{_num(row.events_a)} → {_num(row.events_b)}"
        parts.append(f"{change} {_plural(what)} per FMA ({counts})")
    elif change == "new":
        parts.append(f"only in B ({_num(row.events_b)} {_plural(what)} per FMA)")
    elif change == "gone":
        parts.append(f"gone in B (was {_num(row.events_a)} {_plural(what)} per FMA)")
    if row.unit_change is not None:
        parts.append(f"{row.unit_change} per {what} ({_ns(row.unit_a)} → {_ns(row.unit_b)} ns)")
    elif row.below_a or row.below_b:
        side = "A and B" if row.below_a and row.below_b else ("A" if row.below_a else "B")
        parts.append(f"per-{what} cost below the probe's resolution on {side} (not compared)")
    return "; ".join(parts)


def pair_summary(pair: BreakdownPair, limit: int = 3) -> list[str]:
    """The rows whose cost changed most (:meth:`BreakdownPair.biggest`), each as
    ``layer (per): −2.10 ns/FMA: why``."""
    return [
        f"{row.layer} ({row.unit.removeprefix('ns/')}): {row.delta_ns:+.2f} ns/FMA"
        + (f": {why(row)}" if why(row) else "")
        for row in pair.biggest(limit)
    ]
