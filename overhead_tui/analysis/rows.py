"""One priced row of the model: events × a unit cost, with the unit cost's interval (from a
named unit cost of :class:`UnitCosts`, or given)."""

from __future__ import annotations

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.breakdown import BreakdownRow


def priced_row(
    layer: str,
    events: float | None,
    unit: float | None,
    unit_name: str,
    costs: UnitCosts | None = None,
    cost: str | None = None,
) -> BreakdownRow:
    """One model row; with ``costs`` and ``cost`` (a field name) it carries intervals."""
    ns = events * unit if events is not None and unit is not None else None
    interval = costs.interval(cost) if costs is not None and cost is not None else None
    if unit is None:
        interval = None
    return BreakdownRow(
        layer=layer,
        events_per_fma=events,
        unit_cost=unit,
        unit=unit_name,
        ns_per_fma=ns,
        unit_interval=interval,
        ns_interval=unc.times(events, interval) if interval and events is not None else None,
        below_resolution=costs is not None and cost in costs.below_resolution,
    )


def ranged_row(
    layer: str,
    events: float,
    unit_ns: float,
    unit: str,
    unit_interval: unc.Interval | None = None,
) -> BreakdownRow:
    """One model row whose unit cost's interval is given (a point without one); the interval
    is widened to hold the unit cost itself (the median process inside its range)."""
    low, high = sorted(unit_interval or (unit_ns, unit_ns))
    low, high = min(low, unit_ns), max(high, unit_ns)
    return BreakdownRow(
        layer=layer,
        events_per_fma=events,
        unit_cost=unit_ns,
        unit=unit,
        ns_per_fma=events * unit_ns,
        unit_interval=(low, high),
        ns_interval=(events * low, events * high),
    )
