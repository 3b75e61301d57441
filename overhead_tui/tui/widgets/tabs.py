"""The drill-in tabs.  A tab is one widget class listed by ``scenario_tabs()``.

Each tab class has ``tab_title`` and ``has_data(result)``; the scenario screen shows only the
tabs with data, so later tabs (breakdown, stacks) are added by writing one class and listing it.
"""

from __future__ import annotations

from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Label, Sparkline, Static

from overhead_tui.present.bytecode_text import bytecode_notes, per_fma_header
from overhead_tui.present.format import (
    FITTED_NOTE,
    compiled_text,
    first_call_label,
    fmt_cost,
    fmt_share,
    fmt_share_interval,
    not_closing_text,
    samples_label,
    unstable_explained,
)
from overhead_tui.summary.breakdown import FITTED_MARK, Breakdown
from overhead_tui.summary.layers import SHORT_LABELS, layer_label
from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import fmt_gflops, fmt_number, fmt_percent, fmt_ratio, fmt_seconds
from overhead_tui.summary.vocabulary import rate_unit
from overhead_tui.tui.widgets.column_table import column_table
from overhead_tui.tui.widgets.layer_bar import LAYER_GLYPHS, stacked_bar
from overhead_tui.tui.widgets.profile_tabs import LinesTab, NativeTab, StacksTab
from overhead_tui.tui.widgets.scenario_tab import ScenarioTab


class TimingsTab(ScenarioTab):
    """Samples as a sparkline, the statistics and the derived throughput figures."""

    tab_title = "Timings"
    DEFAULT_CSS = """
    TimingsTab Sparkline { height: 3; margin: 0 1; }
    TimingsTab .caption { color: $text-muted; padding: 0 1; }
    TimingsTab #stats { padding: 0 1; height: auto; }
    TimingsTab .warning { color: $warning; padding: 0 1; }
    """

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return result.has_speed and bool(result.samples_s)

    def compose(self) -> ComposeResult:
        r = self.result
        yield Label(
            f"{samples_label(r)} × {r.loops or 1} call(s) each, seconds per call "
            f"(min {fmt_seconds(r.min_s)}, max {fmt_seconds(max(r.samples_s))})",
            classes="caption",
        )
        yield Sparkline(r.samples_s, summary_function=max)
        yield Static(self._stats_table(), id="stats")
        for warning in r.warnings:  # sentences, left to right, wrapping at the tab's width
            yield Static(f"! {warning}", classes="warning")

    def _stats_table(self) -> Table:
        r = self.result
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column(justify="right")
        table.add_column(style="bold")
        table.add_column(justify="right")
        rows = [
            ("median", fmt_seconds(r.median_s), rate_unit(r.dtype), fmt_gflops(r.gflops)),
            (
                "min",
                fmt_seconds(r.min_s),
                "ns per multiply-add",
                f"{r.ns_per_fma:.3g}" if r.ns_per_fma is not None else "—",
            ),
            ("IQR", fmt_seconds(r.iqr_s), "× dense kernel", fmt_ratio(r.vs_dense)),
            ("CV", fmt_percent(r.cv), first_call_label(r), _compile(r)),
            ("std dev", fmt_seconds(r.stdev_s), "CPU steal", fmt_percent(r.steal_fraction)),
            (
                "max |error|",
                f"{r.max_abs_error:.2g}" if r.max_abs_error is not None else "—",
                "threads (BLAS / numba)",
                f"{_int(r.blas_threads)} / {_int(r.numba_threads)}",
            ),
            (
                "flop/byte",
                fmt_number(r.arithmetic_intensity),
                "of measured peak / roofline ceiling",
                f"{fmt_percent(r.pct_peak)} / {fmt_gflops(r.roofline_ceiling_gflops)} GFLOP/s"
                if r.pct_peak is not None
                else "— (no measured limits)",
            ),
        ]
        for row in rows:
            table.add_row(*row)
        return table


class SourceTab(ScenarioTab):
    """The kernel's own source, syntax highlighted."""

    tab_title = "Source"

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return bool(result.kernel_source.strip())

    def compose(self) -> ComposeResult:
        """Each part of the kernel numbered with its own lines in the scenario file (as perf,
        py-spy and Scalene name them); older summaries from 1."""
        parts = self.result.kernel_source.split("\n\n\n")
        starts = self.result.kernel_lines
        if len(starts) != len(parts):
            parts, starts = [self.result.kernel_source], [1]
        with VerticalScroll():
            for part, start in zip(parts, starts, strict=True):
                yield Static(
                    Syntax(
                        part,
                        "python",
                        line_numbers=True,
                        start_line=start,
                        theme="ansi_dark",
                        word_wrap=False,
                    )
                )


class BreakdownTab(ScenarioTab):
    """The model breakdown: events per multiply-add × unit cost = time, per layer."""

    tab_title = "Breakdown"
    DEFAULT_CSS = """
    BreakdownTab { padding: 0 1; }
    BreakdownTab .caption { color: $text-muted; }
    BreakdownTab .warning { color: $warning; }
    """

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return bool(result.breakdown)

    def compose(self) -> ComposeResult:
        b = self.result.breakdown
        if b is None:
            return
        yield Static(
            f"measured {fmt_cost(b.measured_ns_per_fma, b.measured_interval)} ns per "
            "multiply-add"
            + (
                f", predicted {fmt_cost(b.predicted_ns_per_fma, b.predicted_interval)} ns"
                if b.predicted_ns_per_fma is not None
                else ""
            )
            + f"; the model explains {fmt_share(b.explained, b.explained_interval)}"
            + (
                f", {fmt_percent(b.labelled_rest)} more is labelled by what the rung carries"
                if (b.labelled_rest or 0) > 0.0005
                else ""
            )
            + " (unexplained = measured − explained)",
            classes="caption",
        )
        if note := unstable_explained(self.result):
            yield Static(note, classes="warning")
        if b.probe_doubt:
            yield Static(b.probe_doubt, classes="warning")
        if b.prediction:
            yield Static(f"predicted from {b.prediction}", classes="caption")
        if b.closes is False and b.closure is not None:
            yield Static(not_closing_text(b), classes="warning")
        yield Static(stacked_bar(b.layers, 60))
        yield Static(self._table(b, narrow=self.app.size.width < NARROW))
        if b.compiled is not None:
            for line in compiled_text(b.compiled):
                yield Static(line, classes="caption")
        if scale := b.scale:
            yield Static(
                f"unit costs × {scale.factor:.2f} [{scale.interval[0]:.2f}–"
                f"{scale.interval[1]:.2f}]: this worker ran the probes' reference loop at "
                f"{fmt_number(scale.dispatch_ns_now)} ns/dispatch beside its samples",
                classes="caption",
            )
        if any(
            r.unit.endswith(FITTED_MARK) and abs(r.share or 0.0) >= HIDDEN_SHARE for r in b.rows
        ):
            yield Static(FITTED_NOTE, classes="caption")
        if b.intervals:
            yield Static(
                "[low–high]: bounds from each probe's per-process range and the middle half "
                "of the samples",
                classes="caption",
            )

    @staticmethod
    def _table(b: Breakdown, narrow: bool = False) -> Table:
        """The rows; ``narrow``: short layer names and units (a unit's first word: what
        follows it is said in the lines below the table), no interval column."""
        columns = ("layer", "events / FMA", "unit cost", "ns / FMA", "share", "interval")
        table = column_table(
            columns[:-1] if narrow else columns,
            left={"layer"},
            padding=(0, 1 if narrow else 2),
            header_style="bold",
        )
        for row in b.rows:
            # a negligible share is hidden, but not an operation no probe prices (its share is
            # no measurement: its time is in "unexplained", and the row says why)
            if abs(row.share or 0.0) < HIDDEN_SHARE and row.unit_cost is not None:
                continue
            unit = row.unit_cost
            said = row.unit
            if narrow:
                said = row.unit.split(" ", 1)[0] + (
                    FITTED_MARK if row.unit.endswith(FITTED_MARK) else ""
                )
            interval = None if narrow else row.unit_interval
            cost = fmt_cost(unit, interval, row.below_resolution)
            # a unit names what ran (``ndarray[20,20] float64[int]``): text, not markup
            unit_text = escape(f"{cost} {said}" if unit is not None else said)
            letter = LAYER_GLYPHS.get(row.layer, ("?", ""))[0]
            label = SHORT_LABELS.get(row.layer, row.layer) if narrow else layer_label(row.layer)
            cells = [
                f"{letter} {label}",
                fmt_number(row.events_per_fma),
                unit_text,
                fmt_number(row.ns_per_fma),
                fmt_percent(row.share),
                fmt_share_interval(
                    row.share_interval or (b.intervals.get(row.layer) if unit is None else None)
                ),
            ]
            table.add_row(*(cells[:-1] if narrow else cells))
        other = b.layers.get("other")
        measured = b.measured_ns_per_fma
        if other is not None and measured:
            cells = [
                "o unexplained" if narrow else "o unexplained (residual)",
                "",
                "measured − explained",
                fmt_number(other * measured),
                fmt_percent(other),
                fmt_share_interval(b.intervals.get("other")),
            ]
            table.add_row(*(cells[:-1] if narrow else cells))
        return table


NARROW = 120
"""Terminal columns below which the breakdown table drops its interval column and long
unit texts."""
HIDDEN_SHARE = 0.0005
"""Breakdown rows under 0.05 % of the time are left out of the table (kept in the summary)."""


class BytecodeTab(ScenarioTab):
    """The executed instructions (adaptive, specialised names) with counts per multiply-add at
    the n they were counted at (``present.bytecode_text``)."""

    tab_title = "Bytecode"
    DEFAULT_CSS = """
    BytecodeTab .caption { color: $text-muted; padding: 0 1; }
    """
    MIN_PER_FMA = 0.01
    """Instructions executed less often than this per multiply-add are left out."""

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return any(b.per_fma >= cls.MIN_PER_FMA for b in result.bytecode)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            # said before the rows, one short line each: read first, never wrapped at 80 columns
            yield Label(Text("\n".join(bytecode_notes(self.result))), classes="caption")
            yield Static(self._table())

    def _table(self) -> Table:
        table = column_table(
            ("code", "offset", "instruction", "argument", per_fma_header(self.result)),
            left={"code", "instruction", "argument"},
            padding=(0, 2),
            header_style="bold",
        )
        for b in self.result.bytecode:
            if b.per_fma < self.MIN_PER_FMA:
                continue
            style = "bold" if b.per_fma >= 0.5 else ""
            name = Text(("+ " if b.fused_per_fma else "") + b.opname, style=style)
            table.add_row(b.code, str(b.offset), name, b.arg, fmt_number(b.per_fma))
        return table


def _compile(r: ScenarioResult) -> str:
    """Compile time, or "none" when the first call was no slower than a timed one."""
    if r.compile_s is None:
        return "—"
    return fmt_seconds(r.compile_s) if r.compile_s >= 1e-4 else "none (< 0.1 ms)"


def _int(value: int | None) -> str:
    return "—" if value is None else str(value)


def scenario_tabs() -> list[type[ScenarioTab]]:
    """Tabs of the scenario screen, in order (the profiler tabs live in their own module)."""
    return [TimingsTab, BreakdownTab, BytecodeTab, NativeTab, StacksTab, LinesTab, SourceTab]


"""Tabs of the scenario screen, in order."""
