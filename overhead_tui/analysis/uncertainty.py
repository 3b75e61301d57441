"""Intervals of the probes' unit costs and of the model's shares (no Textual, no engine).

Method (documented in the README and used everywhere an interval is shown):

* **A probe's interval** is the range ``[min, max]`` of its per-process values (each worker
  process gives one value, the median of its own samples).  For n independent processes this
  is a distribution-free confidence interval for the median process value with coverage
  1 − 2 · 0.5ⁿ (75 % for 3 processes, 97 % for 6, 98 % for 7: :func:`median_coverage`).  A
  detail (such as ``store_ns``), the median of its own per-process values, gets the
  per-process range of that detail when the probe recorded it (``detail_intervals``), else the
  main value's relative interval.
* **A rung's time** per multiply-add is the median ± half its IQR (the middle half of its
  samples): ``[median − IQR/2, median + IQR/2]``.
* **Propagation** is interval arithmetic (bounds, not a standard error): a row's time is
  ``events × [unit low, unit high]`` (counts are exact); a layer's time is the sum of its rows'
  bounds; a share is ``[time low / measured high, time high / measured low]``; ``explained``
  likewise with the sum over all modelled rows; ``other`` = ``[1 − explained high, 1 −
  explained low]``.  Every unit cost at its low end together is the worst case, so the
  intervals are conservative, and they always contain the point value.
* **A change** between two rungs (a waterfall step) is the earlier end's interval minus the
  later one's (:func:`difference`); a change whose interval contains 0 is within noise.
* **A cost below the resolution**: a probe whose value or interval reaches ≤ 0 measured a
  difference smaller than its noise; the model counts it as 0 with the interval clamped at 0,
  and screens say "below resolution" instead of printing a negative cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from overhead_tui.summary.codec import Interval as Interval  # the analysis' name for it


def median_coverage(processes: int) -> float:
    """Coverage of ``[min, max]`` of ``processes`` values as an interval for their median."""
    return 1.0 - 2.0 * 0.5**processes if processes > 1 else 0.0


def probe_interval(samples: Sequence[float], value: float | None = None) -> Interval | None:
    """``[min, max]`` of the per-process values (widened to contain ``value``), or None."""
    values = [float(x) for x in samples if x is not None]
    if value is not None:
        values.append(float(value))
    if not values:
        return None
    return (min(values), max(values))


def relative_interval(value: float, reference: float, interval: Interval) -> Interval:
    """``value`` with the relative interval that ``interval`` has around ``reference``."""
    if not reference:
        return (value, value)
    low, high = interval[0] / reference, interval[1] / reference
    a, b = value * low, value * high
    return (min(a, b, value), max(a, b, value))


def clamp(interval: Interval) -> Interval:
    """An interval of a cost, clamped at 0 (a negative cost is below the resolution)."""
    return (max(0.0, interval[0]), max(0.0, interval[1]))


def times(events: float, interval: Interval) -> Interval:
    """``events × interval`` (events ≥ 0 are exact counts)."""
    return (events * interval[0], events * interval[1])


def total(intervals: Iterable[Interval]) -> Interval:
    """Sum of intervals (bounds add)."""
    low = high = 0.0
    for a, b in intervals:
        low, high = low + a, high + b
    return (low, high)


def difference(a: Interval, b: Interval) -> Interval:
    """``a − b`` (bounds subtract crosswise): a change between two measured ends, e.g. a
    waterfall step's saving or a layer's change of cost; it contains 0 when the ends overlap."""
    return (a[0] - b[1], a[1] - b[0])


def timing_interval(median: float, iqr: float | None) -> Interval:
    """``[median − IQR/2, median + IQR/2]``, the low end kept above 0."""
    half = (iqr or 0.0) / 2
    return (max(median - half, median * 1e-3), median + half)


def share(part: Interval, measured: Interval) -> Interval:
    """The share ``part / measured`` as an interval: ``[low / high, high / low]``."""
    return (part[0] / measured[1], part[1] / measured[0])


def complement(interval: Interval) -> Interval:
    """``1 − interval``: the rest not explained."""
    return (1.0 - interval[1], 1.0 - interval[0])


def ratio(a: Interval, b: Interval) -> Interval:
    """``a / b`` for positive intervals."""
    return (a[0] / b[1], a[1] / b[0])


def contains(interval: Sequence[float], value: float) -> bool:
    """``low ≤ value ≤ high``."""
    return interval[0] <= value <= interval[1]
