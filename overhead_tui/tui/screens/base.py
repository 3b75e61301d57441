"""What every full screen shares: breakpoints and the 'terminal too small' message."""

from __future__ import annotations

from typing import ClassVar

from textual.screen import Screen

from overhead_tui.tui.widgets.too_small import BREAKPOINTS_HEIGHT, BREAKPOINTS_WIDTH


class BaseScreen(Screen[None]):
    """A screen that hides its content below the minimum terminal size (see ``TooSmall``)."""

    DEFAULT_CSS = """
    BaseScreen.-too-narrow > *, BaseScreen.-too-short > * { display: none; }
    BaseScreen.-too-narrow > #too-small, BaseScreen.-too-short > #too-small { display: block; }
    """

    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = BREAKPOINTS_WIDTH
    VERTICAL_BREAKPOINTS: ClassVar[list[tuple[int, str]] | None] = BREAKPOINTS_HEIGHT
