"""The Roofline screen: every ok rung at (arithmetic intensity, GFLOP/s) under the ceilings."""

from __future__ import annotations

import math

from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.analysis.roofline import Roofline, RooflinePoint, roofline
from overhead_tui.present.format import roofline_row
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops, fmt_number
from overhead_tui.summary.vocabulary import rate_unit
from overhead_tui.tui.screens.base import DrillScreen
from overhead_tui.tui.widgets.column_table import column_table
from overhead_tui.tui.widgets.loglog_plot import LogLogFigure, LogLogPlot, PointLabel, Series

CEILING_STYLES = ((":", "orange"), ("+", "cyan"), ("=", "green"), ("-", "red"), ("~", "magenta"),
                  ("*", "yellow"), ("#", "blue"), ("%", "bright_green"), ("^", "bright_red"),
                  ("&", "bright_cyan"), ("$", "bright_magenta"))  # fmt: skip
"""(plotext marker, colour) of the compute ceilings, lowest first: the character tells them
apart without colour."""
SAME_SPOT = 1.25
"""Points at the same intensity whose GFLOP/s differ by less than this factor share a label."""


TRAJECTORY_MARKERS = ("a", "b", "c", "d", "e", "f")
"""Markers of a batch sweep's trajectories, one letter per scenario (named in the legend)."""


def _x_range(model: Roofline) -> tuple[float, float]:
    """Intensities to draw: every point, trajectory and ceiling's ridge, with a margin."""
    xs = [p.intensity for p in model.points]
    xs += [x for path in model.trajectories.values() for _, x, _ in path]
    xs = xs or [1.0]
    ridges = [c.gflops / model.bandwidth_gbs for c in model.ceilings if model.bandwidth_gbs]
    return min([*xs, *ridges]) / 4, max([*xs, *ridges]) * 4


def _point_labels(model: Roofline) -> list[PointLabel]:
    """One label per spot: rungs that would overwrite each other are joined ("7,9,10")."""
    groups: list[list[RooflinePoint]] = []
    for point in sorted(model.points, key=lambda p: (p.intensity, p.gflops)):
        last = groups[-1][-1] if groups else None
        if (
            last is not None
            and math.isclose(last.intensity, point.intensity)
            and point.gflops < last.gflops * SAME_SPOT
        ):
            groups[-1].append(point)
        else:
            groups.append([point])
    return [
        PointLabel(",".join(str(p.rung) for p in g), g[0].intensity, g[0].gflops) for g in groups
    ]


def ceiling_legend(model: Roofline) -> str:
    """The plot's legend as text (marker, ceiling, GFLOP/s), shown under the plot."""
    parts = [
        f"{marker} {c.label} {fmt_gflops(c.gflops)} {rate_unit(c.dtype or model.dtype)} "
        f"({c.measured_by})"
        for c, (marker, _) in zip(model.ceilings, CEILING_STYLES, strict=False)
    ]
    if model.bandwidth_gbs:
        parts.append(f"slope: memory {fmt_number(model.bandwidth_gbs)} GB/s")
    if model.ridge_point:
        parts.append(f"ridge point {fmt_number(model.ridge_point)} flop/B")
    for name, marker in zip(model.trajectories, TRAJECTORY_MARKERS, strict=False):
        parts.append(f"{marker}: {name} from m = 1 up (batch sweep)")
    return " · ".join(parts) + " · numbers: rungs"


def roofline_figure(model: Roofline) -> LogLogFigure:
    """The plot: each compute ceiling capped by the bandwidth slope, and numbered points."""
    low_x, high_x = _x_range(model)
    series = []
    for ceiling, (marker, color) in zip(model.ceilings, CEILING_STYLES, strict=False):
        top = ceiling.gflops
        if model.bandwidth_gbs:  # each compute roof meets the bandwidth slope at its own ridge
            x = [low_x, top / model.bandwidth_gbs, high_x]
            y = [min(top, v * model.bandwidth_gbs) for v in x]
        else:
            x, y = [low_x, high_x], [top, top]
        series.append(Series(None, x, y, line=True, marker=marker, color=color))
    for path, marker in zip(model.trajectories.values(), TRAJECTORY_MARKERS, strict=False):
        xs = [x for _, x, _ in path]
        series.append(Series(None, xs, [y for _, _, y in path], line=True, marker=marker))
    xs = [p.intensity for p in model.points]
    series.append(Series(None, xs, [p.gflops for p in model.points], marker="●", color="white"))
    return LogLogFigure(
        title=f"Roofline ({model.dtype})",
        xlabel="arithmetic intensity (flop/byte, minimum traffic)",
        ylabel=rate_unit(model.dtype),
        series=series,
        labels=_point_labels(model),
    )


class RooflineScreen(DrillScreen):
    """A log-log roofline of the run and, under it, the numbers of every point."""

    CSS_PATH = "roofline.tcss"

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.model = roofline(summary)

    def compose_body(self) -> ComposeResult:
        if not self.model.points:
            yield Static("No ok rung with a speed yet: run the ladder first (r).", id="empty")
        else:
            yield LogLogPlot(id="plot")
            with VerticalScroll(id="points"):
                # the legend as wide as the screen (a table title wraps at the table's width)
                yield Static(
                    ceiling_legend(self.model)
                    if self.model.ceilings
                    else "no measured ceilings in this summary (saved before the limits were "
                    "measured, or run without probes)",
                    id="legend",
                )
                yield Static(self._table())

    def on_mount(self) -> None:
        if self.model.points:
            self.query_one(LogLogPlot).show(roofline_figure(self.model))

    def _table(self) -> Table:
        table = column_table(
            ("#", "scenario", "n", "flop/B", "GFLOP/s", "attainable", "of attainable", "roof"),
            left={"scenario", "roof"},
            padding=(0, 1),
            caption="intensity = 2n³ flops / 3n²·itemsize bytes; attainable = min(peak, "
            "intensity × bandwidth)",
            caption_justify="left",
        )
        for p in self.model.points:
            table.add_row(*roofline_row(p))
        return table
