"""One priced row of the model: events × a unit cost, with the unit cost's interval."""

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
    priced = interval is not None and unit is not None
    return BreakdownRow(
        layer=layer,
        events_per_fma=events,
        unit_cost=unit,
        unit=unit_name,
        ns_per_fma=ns,
        unit_interval=interval if priced else None,
        ns_interval=unc.times(events, interval) if priced and events is not None else None,  # type: ignore[arg-type]
        below_resolution=costs is not None and cost in costs.below_resolution,
    )
