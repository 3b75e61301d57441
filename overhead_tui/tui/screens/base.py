"""What every full screen shares: breakpoints and the 'terminal too small' message."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.screen import Screen

from overhead_tui.tui.widgets.too_small import BREAKPOINTS_HEIGHT, BREAKPOINTS_WIDTH

BASE_TCSS = Path(__file__).with_name("base.tcss")
"""Styles every :class:`BaseScreen` loads before its own ``CSS_PATH``."""


class BaseScreen(Screen[None]):
    """A screen that hides its content below the minimum terminal size (see ``TooSmall``).

    A subclass names only its own ``.tcss`` in ``CSS_PATH``; ``base.tcss`` comes first.
    """

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = BREAKPOINTS_WIDTH
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = BREAKPOINTS_HEIGHT

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.css_path = [BASE_TCSS, *self.css_path]
