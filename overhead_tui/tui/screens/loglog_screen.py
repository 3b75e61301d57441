"""What the two sweep screens share: a log-log plot on top, its tables under it, or one line
saying how to measure the sweep when the run has none; the series' line characters and colours.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.tui.screens.base import SummaryScreen
from overhead_tui.tui.widgets.loglog_plot import LogLogFigure, LogLogPlot

MARKERS: tuple[str, ...] = ("*", "+", "o", "x", "#", "%", "@", "=")
"""Line characters of the series, in order: the curves stay apart without colour."""
COLORS: tuple[tuple[str, str], ...] = (
    ("red", "red"),
    ("green", "green"),
    ("cyan", "cyan"),
    ("orange", "yellow"),  # plotext's "orange" is ANSI yellow (its "yellow" is not)
    ("blue", "blue"),
    ("magenta", "magenta"),
)
"""Line colours of the series, in order: (plotext name, Rich name) of the same ANSI colour."""

Legend = dict[str, tuple[str, tuple[str, str]]]
"""Scenario -> (line character, (plotext colour, Rich colour))."""


def legend_of(names: Iterable[str]) -> Legend:
    """Each drawn scenario's line character and colour, in the order given.

    The table under the plot is the legend (marker, then name): plotext's own legend box
    would cover the curves on a small terminal."""
    return {
        name: (MARKERS[i % len(MARKERS)], COLORS[i % len(COLORS)]) for i, name in enumerate(names)
    }


class LogLogScreen(SummaryScreen):
    """A sweep's screen: :meth:`figure` drawn on top, the :meth:`tables` under it; without a
    sweep (:meth:`has_sweep` false) only ``empty_text``."""

    empty_text: ClassVar[str] = ""

    def has_sweep(self) -> bool:
        """True when the run has the sweep this screen draws."""
        raise NotImplementedError

    def figure(self) -> LogLogFigure:
        """The plot."""
        raise NotImplementedError

    def tables(self) -> Iterable[tuple[RenderableType, str]]:
        """What goes under the plot: (renderable, widget id) in order."""
        raise NotImplementedError

    def compose_body(self) -> ComposeResult:
        if not self.has_sweep():
            yield Static(self.empty_text, id="empty")
            return
        yield LogLogPlot(id="plot")
        with VerticalScroll(id="points"):
            for renderable, widget_id in self.tables():
                yield Static(renderable, id=widget_id)

    def on_mount(self) -> None:
        if self.has_sweep():
            self.query_one(LogLogPlot).show(self.figure())
