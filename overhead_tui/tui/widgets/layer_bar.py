"""A bar split by layer: each layer a letter on its own colour, readable without colour."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from overhead_tui.summary.layers import LAYER_LETTERS, SHORT_LABELS, layer_label

LAYER_COLOURS: dict[str, str] = {
    "interpreter_dispatch": "#5fafff",
    "boxing": "#ff875f",
    "dynamic_dispatch": "#d7af5f",
    "container_access": "#afd75f",
    "call_overhead": "#d787d7",
    "library_layers": "#ffd75f",
    "scalar_compute": "#87d7d7",
    "simd_compute": "#5fd787",
    "dense_kernel": "#00af5f",
    "memory": "#8787ff",
    "parallel": "#af87af",
    "other": "#8a8a8a",
}
"""Layer -> the background colour of its cells."""

LAYER_GLYPHS: dict[str, tuple[str, str]] = {
    layer: (LAYER_LETTERS[layer], f"black on {colour}") for layer, colour in LAYER_COLOURS.items()
}
"""Layer -> (letter, Rich style).  Letters carry the meaning; colour only helps."""


def stacked_bar(shares: dict[str, float], length: int) -> Text:
    """``length`` cells split among the layers with positive shares, largest remainders first.

    Args:
        shares: layer -> fraction of the time (negatives, e.g. an over-explained ``other``,
            are left out).
        length: cells to fill (0 gives an empty text).
    """
    positive = {k: v for k, v in shares.items() if v > 0}
    total = sum(positive.values())
    text = Text()
    if length <= 0 or total <= 0:
        return text
    exact = {k: v / total * length for k, v in positive.items()}
    cells = {k: int(v) for k, v in exact.items()}
    for k in sorted(exact, key=lambda k: exact[k] - cells[k], reverse=True):
        if sum(cells.values()) >= length:
            break
        cells[k] += 1
    for layer in LAYER_GLYPHS:
        if cells.get(layer):
            letter, style = LAYER_GLYPHS[layer]
            text.append(letter * cells[layer], style=style)
    return text


def legend(layers: list[str] | None = None) -> Text:
    """``d dispatch  b boxing ...``: each letter styled as in the bars, then its label; with
    ``width``, entries are packed into lines of at most that many cells, so a line breaks
    between two entries, never inside one."""
    return legend_lines(layers, None)


def legend_lines(layers: list[str] | None, width: int | None) -> Text:
    """:func:`legend` packed into lines of ``width`` cells (one line when None)."""
    text = Text()
    used = 0
    for layer in layers or list(LAYER_GLYPHS):
        letter, style = LAYER_GLYPHS[layer]
        entry = f" {SHORT_LABELS.get(layer, layer_label(layer))}"
        size = len(letter) + len(entry)
        if width is not None and used and used + size > width:
            text.append("\n")
            used = 0
        elif used:
            text.append("  ")
            used += 2
        text.append(letter, style=style)
        text.append(entry)
        used += size
    return text


class LayerLegend(Widget):
    """The layer legend as a widget: its lines break between entries at its own width."""

    DEFAULT_CSS = "LayerLegend { height: auto; }"

    def render(self) -> Text:
        return legend_lines(None, self.size.width or None)
