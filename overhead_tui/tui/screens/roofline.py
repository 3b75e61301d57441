"""The Roofline screen: every ok rung at (arithmetic intensity, GFLOP/s) under the ceilings."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from overhead_tui.format import fmt_gflops, fmt_number, fmt_percent
from overhead_tui.model import RunSummary
from overhead_tui.roofline import Roofline, roofline
from overhead_tui.tui.screens.base import BaseScreen
from overhead_tui.tui.widgets.loglog_plot import LogLogFigure, LogLogPlot, PointLabel, Series
from overhead_tui.tui.widgets.too_small import TooSmall

CEILING_COLORS = ("orange", "cyan", "green")
"""plotext colours of the compute ceilings, lowest first."""


def roofline_figure(model: Roofline) -> LogLogFigure:
    """The plot: a line per ceiling (bandwidth slope capped by the peak) and labelled points."""
    xs = [p.intensity for p in model.points] or [1.0]
    ys = [p.gflops for p in model.points]
    low_x, high_x = min(xs) / 2, max(xs) * 2
    if model.ridge_point:
        high_x = max(high_x, model.ridge_point * 2)
    series = []
    for ceiling, color in zip(model.ceilings, CEILING_COLORS, strict=False):
        top = ceiling.gflops
        if model.bandwidth_gbs:  # each compute roof meets the bandwidth slope at its own ridge
            ridge = min(high_x, max(low_x, top / model.bandwidth_gbs))
            x = [low_x, ridge, high_x]
            y = [min(top, v * model.bandwidth_gbs) for v in x]
        else:
            x, y = [low_x, high_x], [top, top]
        series.append(Series(f"{ceiling.label} {fmt_gflops(top)}", x, y, line=True, color=color))
    series.append(Series("rungs (numbers: rung)", xs, ys, marker="●", color="white"))
    labels = [PointLabel(str(p.rung), p.intensity, p.gflops) for p in model.points]
    bandwidth = f"memory {fmt_number(model.bandwidth_gbs)} GB/s" if model.bandwidth_gbs else ""
    return LogLogFigure(
        title=f"Roofline ({model.dtype}) {bandwidth}",
        xlabel="arithmetic intensity (flop/byte, minimum traffic)",
        ylabel="GFLOP/s",
        series=series,
        labels=labels,
    )


class RooflineScreen(BaseScreen):
    """A log-log roofline of the run and, under it, the numbers of every point."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]
    DEFAULT_CSS = """
    RooflineScreen #plot { height: 2fr; min-height: 10; }
    RooflineScreen #points { height: 1fr; padding: 0 1; }
    """

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.model = roofline(summary)

    def compose(self) -> ComposeResult:
        yield Header()
        if not self.model.points:
            yield Static("No ok rung with a speed yet: run the ladder first (r).", id="empty")
        else:
            yield LogLogPlot(id="plot")
            with VerticalScroll(id="points"):
                yield Static(self._table())
        yield Footer()
        yield TooSmall()

    def on_mount(self) -> None:
        if self.model.points:
            self.query_one(LogLogPlot).show(roofline_figure(self.model))

    def _table(self) -> Table:
        ridge = self.model.ridge_point
        table = Table(
            box=None,
            padding=(0, 1),
            title=(
                "no measured ceilings in this summary (saved before the limits were measured, "
                "or run without probes)"
                if not self.model.ceilings
                else "ceilings: "
            )
            + "; ".join(
                f"{c.label} {fmt_gflops(c.gflops)} ({c.measured_by})" for c in self.model.ceilings
            )
            + (f"; ridge point {fmt_number(ridge)} flop/B" if ridge else ""),
            title_justify="left",
            caption="intensity = 2n³ flops / 3n²·itemsize bytes; attainable = min(peak, "
            "intensity × bandwidth)",
            caption_justify="left",
        )
        for header, justify in (
            ("#", "right"),
            ("scenario", "left"),
            ("n", "right"),
            ("flop/B", "right"),
            ("GFLOP/s", "right"),
            ("attainable", "right"),
            ("of attainable", "right"),
            ("roof", "left"),
        ):
            table.add_column(header, justify=justify)  # type: ignore[arg-type]
        for p in self.model.points:
            table.add_row(
                str(p.rung),
                p.name,
                str(p.n),
                fmt_number(p.intensity),
                fmt_gflops(p.gflops),
                fmt_gflops(p.attainable),
                fmt_percent(p.of_attainable),
                p.bound or "—",
            )
        return table
