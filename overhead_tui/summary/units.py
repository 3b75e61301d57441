"""Numbers with their units as text: durations, GFLOP/s, ratios, percentages.

Pure functions shared by every part that writes a number into a message or a table (the
analysis and machine warnings, the CLI, the exporters, the app); ``present.format`` re-exports
them for the views.
"""

from __future__ import annotations


def fmt_seconds(value: float | None) -> str:
    """Format a duration with an SI unit: ``1.23 s``, ``45.6 ms``, ``789 µs``, ``12.0 ns``."""
    if value is None:
        return "—"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
        if abs(value) >= scale or unit == "ns":
            scaled = value / scale
            if abs(scaled) < 0.0005:  # below a thousandth of a ns: no "-0" or "3e-07 ns"
                return f"0 {unit}"
            return f"{scaled:.3g} {unit}" if abs(scaled) < 100 else f"{scaled:.0f} {unit}"
    return f"{value:.3g} s"


def fmt_gflops(value: float | None) -> str:
    """Format GFLOP/s with 3 significant digits (``0.0251``, ``21.4``, ``135``)."""
    if value is None:
        return "—"
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"


def fmt_ratio(value: float | None) -> str:
    """Format a '× slower than the dense kernel' ratio: ``1.0×``, ``37×``, ``5,120×``."""
    if value is None:
        return "—"
    if value < 0.1:
        return f"{value:.2g}×"
    if value < 10:
        return f"{value:.1f}×"
    return f"{value:,.0f}×"


def fmt_number(value: float | None) -> str:
    """Three significant digits without exponent notation: ``0.0384``, ``44.8``, ``2,810``."""
    if value is None:
        return "—"
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) >= 1e-4 else f"{value:.2e}"


def fmt_percent(value: float | None) -> str:
    """Format a fraction as a percentage (``0.034`` -> ``3.4 %``, ``0.0004`` -> ``0.04 %``)."""
    if value is None:
        return "—"
    if 0 < abs(value) < 0.001:
        return f"{value * 100:.2g} %"
    return f"{value * 100:.1f} %"
