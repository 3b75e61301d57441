"""A horizontal bar on a log scale, drawn with eighth-block characters."""

from __future__ import annotations

import math

EIGHTHS = " ▏▎▍▌▋▊▉"


def log_bar(ratio: float | None, max_ratio: float, width: int) -> str:
    """A bar whose length is log10(ratio) / log10(max_ratio) of ``width`` cells.

    Args:
        ratio: × slower than the dense kernel (≥ 1 is the normal case); None gives blanks.
        max_ratio: the largest ratio on screen (the full-width bar).
        width: cells available.

    A ratio of 1 (the dense kernel itself) gets a single thin mark so it stays visible; so a
    5,000× span fits on one line with each decade taking the same width.
    """
    if ratio is None or width <= 0:
        return " " * max(width, 0)
    if max_ratio <= 1.0 or ratio <= 1.0:
        return ("▏" + " " * width)[:width]
    fraction = min(1.0, math.log10(ratio) / math.log10(max_ratio))
    eighths = max(1, round(fraction * width * 8))
    full, part = divmod(eighths, 8)
    bar = "█" * full + (EIGHTHS[part] if part else "")
    return bar.ljust(width)[:width]
