"""The one derivation step: every figure computed from several measured results, in order.

The runner runs it after each scenario, the budgeted sweeps after each point, and the app on a
summary it opens; views only read what it wrote.  Order matters: impossible speeds are
rejected first, so neither × dense, the breakdowns, the waterfall nor the machine's limits
use one.
"""

from __future__ import annotations

from overhead_tui.analysis.attribution import attribute
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.machine.cpu import CpuModel
from overhead_tui.machine.limits import apply_limits, reject_impossible
from overhead_tui.summary.records import RunSummary


def compute_vs_dense(summary: RunSummary) -> None:
    """Set ``vs_dense`` of every ok scenario: its time per flop over the dense kernel's; None
    for a rung at another dtype than the dense kernel's (an engine rung at its own precision
    in a float64 run: ``engine.plan.rung_dtype``)."""
    dense = summary.dense
    for result in summary.scenarios:
        other = dense is not None and result.dtype != dense.dtype
        if dense is None or not result.has_speed or dense.median_s is None or other:
            result.vs_dense = None
            continue
        assert result.median_s is not None
        result.vs_dense = (result.median_s / result.flops) / (dense.median_s / dense.flops)


def derive(summary: RunSummary, cpu: CpuModel | None, *, breakdowns: bool = True) -> None:
    """Recompute, in place: impossible results, × dense, the model breakdowns and the waterfall
    (with ``breakdowns`` and probes: a sweep point has no breakdown), the machine's limits
    (peaks, bandwidth, clock; each rung's arithmetic intensity and % of peak)."""
    reject_impossible(summary, cpu)
    compute_vs_dense(summary)
    if breakdowns and summary.probes:
        attribute(summary, summary.probes)
    elif breakdowns:  # no probes: the waterfall's speedups still come from the timings
        summary.waterfall = waterfall(summary)
    apply_limits(summary, cpu)


def complete_loaded(summary: RunSummary) -> None:
    """Fill in what a summary written by an older version lacks: its waterfall (derived from
    the timings and any stored breakdowns).  Stored figures are never recomputed."""
    if not summary.waterfall:
        summary.waterfall = waterfall(summary)
