"""A bar split by layer: each layer a letter on its own colour, readable without colour."""

from __future__ import annotations

from rich.text import Text

from overhead_tui.summary.layers import SHORT_LABELS, layer_label

LAYER_GLYPHS: dict[str, tuple[str, str]] = {
    "interpreter_dispatch": ("d", "black on #5fafff"),
    "boxing": ("b", "black on #ff875f"),
    "dynamic_dispatch": ("t", "black on #d7af5f"),
    "container_access": ("s", "black on #afd75f"),
    "call_overhead": ("c", "black on #d787d7"),
    "library_layers": ("l", "black on #ffd75f"),
    "scalar_compute": ("x", "black on #87d7d7"),
    "simd_compute": ("v", "black on #5fd787"),
    "dense_kernel": ("k", "black on #00af5f"),
    "memory": ("m", "black on #8787ff"),
    "parallel": ("p", "black on #af87af"),
    "other": ("o", "black on #8a8a8a"),
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
    """``d dispatch  b boxing ...``: each letter styled as in the bars, then its label."""
    text = Text()
    for layer in layers or list(LAYER_GLYPHS):
        letter, style = LAYER_GLYPHS[layer]
        text.append(letter, style=style)
        text.append(f" {SHORT_LABELS.get(layer, layer_label(layer))}  ")
    return text
