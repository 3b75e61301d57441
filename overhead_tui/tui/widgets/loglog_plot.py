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

from overhead_tui.summary.units import fmt_number


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
    x_ticks: tuple[Sequence[float], Sequence[str], tuple[float, float]] | None = None
    """Custom x ticks (log10 positions, their labels, log10 x limits) instead of decades."""


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

    figure: LogLogFigure | None = None

    def show(self, figure: LogLogFigure) -> None:
        """Replace whatever is drawn with ``figure`` (redrawn on every resize)."""
        self.figure = figure
        self._draw()

    def on_resize(self) -> None:
        if self.figure is not None:
            self._draw()  # labels are merged for the new size

    def _draw(self) -> None:
        figure = self.figure
        assert figure is not None
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
        x_positions, x_names = decade_ticks(all_x)
        x_limits = (x_positions[0], x_positions[-1]) if x_positions else None
        if figure.x_ticks is not None:
            x_positions, x_names, x_limits = (
                list(figure.x_ticks[0]),
                list(figure.x_ticks[1]),
                figure.x_ticks[2],
            )
        y_positions, y_names = decade_ticks(all_y)
        y_limits = (y_positions[0], y_positions[-1]) if y_positions else None
        if x_positions:
            plt.xticks(x_positions, x_names)
        if y_positions:
            plt.yticks(y_positions, y_names)
        if x_limits:
            plt.xlim(*x_limits)
        if y_limits:
            plt.ylim(*y_limits)
        if x_limits and y_limits:
            grid = (max(10, self.size.width - 9), max(3, self.size.height - 5))
            for text, label_x, label_y in merge_labels(figure.labels, x_limits, y_limits, grid):
                plt.text(text, label_x, label_y, alignment="left")
        self.refresh()


def merge_labels(
    labels: Sequence[PointLabel],
    x_limits: tuple[float, float],
    y_limits: tuple[float, float],
    grid: tuple[int, int],
) -> list[tuple[str, float, float]]:
    """Labels as (text, log10 x, log10 y), those that would overlap on screen joined ("7,9").

    ``grid`` is the plot area in cells (columns, rows), roughly: a label covers its text's
    width from its point's cell; a label landing on one already placed in the same row is
    appended to it, so no number is hidden under another.
    """
    columns, rows = grid
    x_span = (x_limits[1] - x_limits[0]) or 1.0
    y_span = (y_limits[1] - y_limits[0]) or 1.0
    placed: list[_Placed] = []
    for label in labels:
        if label.x <= 0 or label.y <= 0:
            continue
        lx, ly = math.log10(label.x), math.log10(label.y)
        column = round((lx - x_limits[0]) / x_span * (columns - 1))
        row = round((ly - y_limits[0]) / y_span * (rows - 1))
        for other in placed:
            if (
                other.row == row
                and other.column <= column + len(label.text)
                and (column <= other.column + len(other.text))
            ):
                other.text = f"{other.text},{label.text}"
                break
        else:
            placed.append(_Placed(label.text, lx, ly, column, row))
    return [(p.text, p.lx, p.ly) for p in placed]


@dataclass
class _Placed:
    """A label placed on the plot's character grid (its text grows as others join it)."""

    text: str
    lx: float
    ly: float
    column: int
    row: int
