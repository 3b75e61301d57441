"""A log-log plot (textual-plotext) whose axes are drawn on log10 values with decade ticks.

Plotext's own ``xscale("log")`` re-applies the logarithm when a plot is rebuilt on resize in
some versions (the log-scale redraw bug the issue warns about).  This widget never asks plotext
for a log axis: it plots log10 of the data on linear axes and labels the ticks with the original
values (1, 10, 100 …), so every redraw draws the same picture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from textual_plotext import PlotextPlot

from overhead_tui.format import fmt_number


@dataclass(frozen=True)
class Series:
    """One named set of points (x, y > 0; others are dropped) drawn as markers or a line."""

    label: str | None
    """Legend text; None keeps the series out of plotext's legend (explained elsewhere)."""
    x: Sequence[float]
    y: Sequence[float]
    line: bool = False
    """Join the points with a line (a ceiling, a sweep) instead of markers only."""
    marker: str = "dot"
    color: str | None = None


@dataclass(frozen=True)
class PointLabel:
    """A text placed at data coordinates (x, y > 0): a rung number beside its point."""

    text: str
    x: float
    y: float


@dataclass(frozen=True)
class LogLogFigure:
    """Everything one plot shows; ``LogLogPlot.show`` draws it."""

    title: str
    xlabel: str
    ylabel: str
    series: Sequence[Series] = ()
    labels: Sequence[PointLabel] = ()
    notes: Sequence[str] = field(default_factory=tuple)


def decade_ticks(values: Sequence[float]) -> tuple[list[float], list[str]]:
    """Ticks at the powers of ten spanning ``values`` (log10 positions, labels of the values).

    Returns ([], []) when no value is positive.
    """
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if not positive:
        return [], []
    low = math.floor(math.log10(min(positive)))
    high = math.ceil(math.log10(max(positive)))
    if high == low:
        high += 1
    positions = [float(k) for k in range(low, high + 1)]
    return positions, [fmt_number(10.0**k) for k in range(low, high + 1)]


def _log_pairs(xs: Sequence[float], ys: Sequence[float]) -> tuple[list[float], list[float]]:
    pairs = [(x, y) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    return [math.log10(x) for x, _ in pairs], [math.log10(y) for _, y in pairs]


class LogLogPlot(PlotextPlot):
    """A PlotextPlot that draws a :class:`LogLogFigure` with log10 axes."""

    DEFAULT_CSS = """
    LogLogPlot { width: 1fr; height: 1fr; min-height: 10; }
    """

    def show(self, figure: LogLogFigure) -> None:
        """Replace whatever is drawn with ``figure``."""
        plt = self.plt
        plt.clear_figure()
        plt.title(figure.title)
        plt.xlabel(figure.xlabel)
        plt.ylabel(figure.ylabel)
        all_x = [x for s in figure.series for x in s.x] + [p.x for p in figure.labels]
        all_y = [y for s in figure.series for y in s.y] + [p.y for p in figure.labels]
        for series in figure.series:
            lx, ly = _log_pairs(series.x, series.y)
            if not lx:
                continue
            draw = plt.plot if series.line else plt.scatter
            draw(lx, ly, label=series.label, marker=series.marker, color=series.color)
        for point in figure.labels:
            if point.x > 0 and point.y > 0:
                plt.text(point.text, math.log10(point.x), math.log10(point.y))
        for axis_ticks, values in ((plt.xticks, all_x), (plt.yticks, all_y)):
            positions, names = decade_ticks(values)
            if positions:
                axis_ticks(positions, names)
        positions_x, _ = decade_ticks(all_x)
        positions_y, _ = decade_ticks(all_y)
        if positions_x:
            plt.xlim(positions_x[0], positions_x[-1])
        if positions_y:
            plt.ylim(positions_y[0], positions_y[-1])
        self.refresh()
