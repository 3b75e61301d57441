"""The message shown instead of a screen's content when the terminal is below the minimum."""

from __future__ import annotations

from textual.widgets import Static

MIN_WIDTH = 76
"""Narrowest terminal (columns) the screens are laid out for."""
MIN_HEIGHT = 15
"""Shortest terminal (rows) the screens are laid out for."""


class TooSmall(Static):
    """Hidden unless the screen carries the ``-too-narrow`` or ``-too-short`` class."""

    DEFAULT_CSS = """
    TooSmall {
        display: none;
        width: 100%;
        height: 100%;
        content-align: center middle;
        text-align: center;
        color: $warning;
    }
    """

    def __init__(self) -> None:
        super().__init__(
            f"Terminal too small\nneed at least {MIN_WIDTH}×{MIN_HEIGHT}",
            id="too-small",
        )


BREAKPOINTS_WIDTH: list[tuple[int, str]] = [
    (0, "-too-narrow"),
    (MIN_WIDTH, "-narrow"),
    (110, "-wide"),
]
"""HORIZONTAL_BREAKPOINTS for every screen: the classes the layout reacts to."""
BREAKPOINTS_HEIGHT: list[tuple[int, str]] = [(0, "-too-short"), (MIN_HEIGHT, "-tall")]
"""VERTICAL_BREAKPOINTS for every screen."""
