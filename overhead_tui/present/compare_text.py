"""A run comparison (``analysis.compare``) as text: table cells, notes and fact lines."""

from __future__ import annotations

from overhead_tui.analysis.compare import SWEEP_SIZE, Comparison, RungComparison
from overhead_tui.summary.units import fmt_number, fmt_seconds


def fmt_change(ratio: float | None) -> str:
    """A B/A ratio with two decimals near 1 (``1.03×``, ``0.97×``, ``12.5×``, ``2,050×``)."""
    if ratio is None:
        return "—"
    if ratio >= 100:
        return f"{ratio:,.0f}×"
    if ratio >= 10:
        return f"{ratio:.1f}×"
    if ratio >= 0.01:
        return f"{ratio:.2f}×"
    return f"{ratio:.2g}×"


def fmt_p_value(p_value: float | None) -> str:
    """A p-value with three decimals, ``<0.001`` below that, ``—`` when not tested."""
    if p_value is None:
        return "—"
    return "<0.001" if p_value < 0.001 else f"{p_value:.3f}"


def fact_text(path: str, value: object, sweep: bool = False) -> str:
    """How a setting or machine fact reads: ``None`` as :data:`NONE_MEANS` says (or ``—``;
    ``settings.size`` of a ``sweep`` as :data:`SWEEP_SIZE`), booleans as yes / no, lists
    comma-separated, floats with three significant digits."""
    if value is None:
        if sweep and path == "settings.size":
            return SWEEP_SIZE
        return NONE_MEANS.get(path, "—")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return fmt_number(value)
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def median_cell(median_s: float | None, status: str) -> str:
    """A side's median (``98.3 ms``), or its status word when it has no speed."""
    return fmt_seconds(median_s) if median_s is not None else status


def comparison_cells(row: RungComparison) -> tuple[str, ...]:
    """One table row: the :data:`COMPARE_HEADERS` cells followed by the note."""
    return (
        row.name,
        median_cell(row.median_a_s, row.status_a),
        median_cell(row.median_b_s, row.status_b),
        fmt_change(row.ratio),
        fmt_p_value(row.p_value),
        row.verdict,
        row.note,
    )


def detail_text(row: RungComparison) -> str:
    """One line on a row: sizes, sample counts, U and p, the ratio and verdict, the note."""
    if not row.compared:
        return f"{row.name}: {row.note} — no ratio without a speed on both sides"
    test = (
        f"U = {row.u_statistic:g}, p = {row.p_value:.3g}"
        if row.u_statistic is not None and row.p_value is not None
        else "not tested"
    )
    text = (
        f"{row.name}: n {row.n_a} vs {row.n_b}, {row.sample_count_a} vs "
        f"{row.sample_count_b} samples; {test}; B/A {fmt_change(row.ratio)}"
        f"{' per flop' if row.per_flop else ''} — {row.verdict}"
    )
    return f"{text} ({row.note})" if row.note else text


def difference_lines(comparison: Comparison) -> list[str]:
    """``settings.dtype: float64 (A) → float32 (B)`` for each difference."""
    c = comparison
    return [
        f"{d.field}: {fact_text(d.field, d.value_a, c.sweep_a)} (A) → "
        f"{fact_text(d.field, d.value_b, c.sweep_b)} (B)"
        for d in c.differences
    ]


def run_notes(comparison: Comparison) -> list[str]:
    """Lines for the header: which run is a size sweep, and whether A and B are one run."""
    c = comparison
    lines = []
    if c.same_run:
        lines.append("note: A and B are the same run (identical summaries)")
    if c.sweep_a and c.sweep_b:
        lines.append(f"A and B are size sweeps: {SWEEP_NOTE}")
    elif c.sweep_a or c.sweep_b:
        lines.append(f"{'A' if c.sweep_a else 'B'} is a size sweep: {SWEEP_NOTE}")
    return lines


def facts_lines(comparison: Comparison) -> list[str]:
    """The text under the table: settings that differ (or ``none``), machine facts recorded
    in one run only, the rungs only one run has."""
    c = comparison
    differences = difference_lines(c)
    lines = ["settings that differ:" if differences else "settings that differ: none"]
    lines += [f"  {line}" for line in differences]
    for d in c.recorded_only:
        side, value = ("A", d.value_a) if d.value_b is None else ("B", d.value_b)
        lines.append(f"recorded only in {side}: {d.field} = {fact_text(d.field, value)}")
    if c.only_in_a:
        lines.append(f"only in A: {', '.join(c.only_in_a)}")
    if c.only_in_b:
        lines.append(f"only in B: {', '.join(c.only_in_b)}")
    return lines


NONE_MEANS: dict[str, str] = {
    "settings.size": "each scenario's own",
    "sweep.sizes": "not a sweep",
    "sweep.budget_s": "not a sweep",
}
"""How a ``None`` setting reads (any other ``None`` shows as ``—``)."""


SWEEP_NOTE = "each rung at its largest measured n (or at the failed point that ended it)"
"""What a sweep's ``scenarios`` hold, as said in the header of a comparison."""


COMPARE_HEADERS: tuple[str, ...] = ("scenario", "A median", "B median", "B/A", "p", "verdict")
"""Columns of the comparison table shared by the command line and the *Compare* screen
(followed by a ``note`` column)."""
