"""Events of a kernel at the timed size, from exact counts at small sizes.

The loops of a matrix multiply execute a number of events that is a polynomial of degree ≤ 3
in n (n³ inner trips, n² and n set-up, a constant).  Counting at four small sizes and fitting
the cubic through them gives the count at any n exactly (up to floating-point rounding), so
the counting run stays small while the events match the timed size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

COUNT_SIZES: tuple[int, ...] = (8, 12, 16, 20)
"""Matrix orders of the counting run (four points determine a cubic)."""


def extrapolate(sizes: Sequence[int], counts: Sequence[float], n: int) -> float:
    """The cubic through (sizes, counts) evaluated at ``n`` (clamped at 0).

    Raises:
        ValueError: fewer than four sizes.
    """
    if len(sizes) < 4:
        raise ValueError("need four sizes for a cubic")
    coefficients = np.polyfit(np.asarray(sizes, float), np.asarray(counts, float), 3)
    return max(0.0, float(np.polyval(coefficients, n)))


def power_law(size: int, count: float) -> tuple[int, float]:
    """(d, c) with ``count`` = c·sizeᵈ, d the nearest integer power (0 for a count ≤ 1) and c
    to three figures: how a per-call size (elements an operation touches, items a site's
    operands hold) grows with n, read at one counted size."""
    power = round(math.log(count) / math.log(size)) if count > 1 else 0
    return power, float(f"{count / size**power:.3g}")
