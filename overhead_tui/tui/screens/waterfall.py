"""The waterfall: the ladder read as successive removals of overhead layers."""

from __future__ import annotations

import math

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.present.waterfall_text import (
    NOISE_HEADER,
    NOTE,
    credit_lines,
    declared_text,
    saved_text,
    step_lead,
)
from overhead_tui.summary.breakdown import WaterfallStep
from overhead_tui.summary.units import fmt_number, fmt_ratio
from overhead_tui.tui.screens.base import SummaryScreen
from overhead_tui.tui.widgets.column_table import column_table
from overhead_tui.tui.widgets.layer_bar import LAYER_GLYPHS

BAR_WIDTH = 40
"""Cells of the time-per-flop bars (log scale from the dense kernel to the slowest rung)."""


NARROW = 120
"""Below this many columns a credit shows its layer's letter and number only (the letters
are the legend's)."""
NARROW_NOTE = (
    "noise: a change whose interval (from its two ends') includes 0, not credited; ~: the sum "
    f"of those; the intervals from {NARROW} columns"
)
"""What the credits mean below :data:`NARROW` columns (no intervals shown)."""
DECLARED_WIDTH = 16
"""Cells of the declared column at most: a declaration wraps, the credits beside it do not."""


class WaterfallScreen(SummaryScreen):
    """Each ok rung's time per flop on a log scale, and what each step saved, by layer."""

    CSS_PATH = "waterfall.tcss"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            if not self.summary.waterfall:
                yield Static("No waterfall yet: it needs at least two ok rungs.", id="empty")
            else:
                yield Static(self._chart(), id="chart")
                yield Static(self._steps(), id="steps")

    def _chart(self) -> Table:
        rungs = [r for r in sorted(self.summary.scenarios, key=lambda r: r.rung) if r.has_speed]
        per_flop = {r.name: r.median_s / r.flops * 1e9 for r in rungs if r.median_s}
        low, high = min(per_flop.values()), max(per_flop.values())
        span = math.log10(high / low) if high > low else 1.0
        table = column_table(
            ("rung", "scenario", "ns/flop", ""),
            left={"scenario", ""},
            padding=(0, 1),
            title="time per flop (ns), log scale",
            title_justify="left",
        )
        # the bar fills what the terminal leaves beside the rung, name and value columns
        used = 6 + max(len(r.name) for r in rungs) + 10 + 10  # columns, padding, scrollbar
        width = max(10, min(BAR_WIDTH * 3, self.app.size.width - used))
        for r in rungs:
            value = per_flop[r.name]
            cells = max(1, round(math.log10(value / low) / span * width)) if span else 1
            table.add_row(str(r.rung), r.name, fmt_number(value), Text("█" * cells, style="cyan"))
        return table

    def _steps(self) -> Table:
        narrow = self.app.size.width < NARROW
        table = column_table(
            ("from → to", "speedup", "noise", "cumulative", "credited to (ns/flop)", "declared"),
            left={"from → to", "noise", "credited to (ns/flop)", "declared"},
            padding=(0, 1),
            title="steps: saved time per flop credited to the layers whose measured cost "
            "changed beyond its noise (interpreted: counted events × probed unit costs; "
            "compiled: the hot loop's in-core bound, the time beyond L1); unexplained: the rest",
            title_justify="left",
        )
        table.columns[-1].max_width = DECLARED_WIDTH  # the credits get the room
        total = 1.0
        for step in self.summary.waterfall:
            total *= step.speedup
            credited = _credited(step, narrow)
            declared = Text(
                declared_text(step), style="bold yellow" if step.contradiction else "dim"
            )
            table.add_row(
                f"{step.from_} →\n{step.to}",
                fmt_ratio(step.speedup),
                _noise(step),
                fmt_ratio(total),
                credited,
                declared,
            )
        table.caption = Text(  # Text: the note's "[low, high]" is no markup
            f"product of speedups {fmt_ratio(total)} = the measured time per flop of the first "
            "ok rung in this run over the last one's (not × dense unless the last is the "
            "dense kernel); noise: within noise when the speedup's bounds (both rungs' middle "
            "half of samples) include 1×; declared: the later rung's REMOVES, shown, never "
            f"used for the credits; {NARROW_NOTE if narrow else NOTE}"
        )
        return table


def _credited(step: WaterfallStep, narrow: bool) -> Group:
    """The step's credits, one a line (none is cut: a long one wraps under its text), after
    "within noise" for a step within noise; narrow: each layer's letter and amount without its
    interval."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    lead = step_lead(step)
    if lead and not narrow:
        grid.add_row("", Text(saved_text(step), style="bold yellow"))
    said_noise = narrow  # narrow: each within noise says "noise"
    for line in credit_lines(step):
        if line.within_noise and not said_noise:
            grid.add_row("", Text(NOISE_HEADER, style="italic"))
            said_noise = True
        letter, style = LAYER_GLYPHS.get(line.key, ("~", "bold"))
        shown = line.short if narrow else line.text
        style_text = "dim" if line.within_noise else ""
        grid.add_row(Text(f" {letter} ", style=style), Text(shown, style_text, overflow="fold"))
    if step.split and step.split not in ("by modelled share", "by measured change"):
        grid.add_row("", Text(f"({step.split})", style="italic"))
    return Group(Text(lead, style="bold yellow"), grid) if lead else Group(grid)


def _noise(step: WaterfallStep) -> Text:
    """The speedup's bounds, from the step's interval: bold yellow when they include 1× (the
    credits then start with "within noise")."""
    bounds = step.speedup_interval
    if not bounds:
        return Text("—")
    text = f"[{fmt_ratio(bounds[0])}–{fmt_ratio(bounds[1])}]"
    return Text(text, style="bold yellow" if step.within_noise else "dim")
