"""What every full screen shares: breakpoints and the 'terminal too small' message."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer

from overhead_tui.summary.records import RunSummary
from overhead_tui.tui.widgets.header import SafeHeader
from overhead_tui.tui.widgets.too_small import BREAKPOINTS_HEIGHT, BREAKPOINTS_WIDTH, TooSmall

BASE_TCSS = Path(__file__).with_name("base.tcss")
"""Styles every :class:`BaseScreen` loads before its own ``CSS_PATH``."""


class BaseScreen(Screen[None]):
    """A screen that hides its content below the minimum terminal size (see ``TooSmall``).

    A subclass names only its own ``.tcss`` in ``CSS_PATH``; ``base.tcss`` comes first.  It
    yields its own widgets from :meth:`compose_body`; the header, the footer and the "terminal
    too small" message are added around them here.
    """

    # textual declares these per instance; a class-wide value is how its docs set them
    HORIZONTAL_BREAKPOINTS = BREAKPOINTS_WIDTH
    VERTICAL_BREAKPOINTS = BREAKPOINTS_HEIGHT

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.css_path = [BASE_TCSS, *self.css_path]

    def compose(self) -> ComposeResult:
        yield SafeHeader()
        yield from self.compose_body()
        yield Footer()
        yield TooSmall()

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets, between the header and the footer."""
        yield from ()


class DrillScreen(BaseScreen):
    """A screen opened over the ladder: ``escape`` goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "app.pop_screen", "Back")]


class SummaryScreen(DrillScreen):
    """A drill-in screen drawn from a run's summary."""

    def __init__(self, summary: RunSummary) -> None:
        super().__init__()
        self.summary = summary
