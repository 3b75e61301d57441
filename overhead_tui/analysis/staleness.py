"""Whether a rung's unit costs may no longer describe the machine it was timed on.

A prediction multiplies counts by unit costs the probes measured, often from the cache and
hours earlier. Four signs that the machine has moved since, each named in
:func:`probe_doubt`: the probes' age at the run's start, the other processes' load then and
now, the rung's own reference dispatch loop (``Scale``) against the dispatch probe's, and a
``loop_mix`` fit too poor to price its bytecode.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from overhead_tui.analysis.unit_costs import MIX_TRUSTED
from overhead_tui.machine.load import OTHERS_WARN
from overhead_tui.summary.probes import ProbeResult

STALE_AGE_S = 3600.0
"""Probes measured more than an hour before the run are another hour of a shared host (issue
50's "another hour, another load"): a VM's neighbours change on that scale."""

SPEED_MOVED = 1.25
"""A rung's reference loop more than 1.25× faster or slower than the dispatch probe's: beyond
the probe's usual process-to-process range on a quiet host (5–20 % on the corpus's CPUs,
``tests/fixtures/cpus``), so the machine's speed moved between probes and rung."""


def _started(created: str) -> float | None:
    try:
        return datetime.fromisoformat(created).timestamp()
    except (TypeError, ValueError):
        return None


def _duration(seconds: float) -> str:
    hours = seconds / 3600
    return f"{hours:.0f} h" if hours >= 2 else f"{seconds / 60:.0f} min"


def probe_doubt(
    probes: Iterable[ProbeResult],
    created: str,
    factor: float | None,
    rung_load: float | None,
    mix_error: float | None = None,
) -> str:
    """Why the probes may not price this rung, as one sentence ("" when nothing says so).

    Args:
        probes: the run's probe records (``measured_at``: Unix s; ``other_cpu_fraction``).
        created: the run's ISO 8601 start (``RunSummary.created``).
        factor: the rung's reference dispatch over the dispatch probe's (``Scale.factor``),
            or None.
        rung_load: share of all CPUs other processes used while the rung ran, or None.
        mix_error: the ``loop_mix`` fit's error when this rung's bytecode was priced one
            event at a time for want of that fit (``unit_costs.MIX_TRUSTED``), else None.
    """
    records = list(probes)
    reasons: list[str] = []
    start = _started(created)
    times = [p.measured_at for p in records if isinstance(p.measured_at, int | float)]
    if start is not None and times and start - min(times) > STALE_AGE_S:
        reasons.append(f"the probes were measured {_duration(start - min(times))} before it")
    loads = [p.other_cpu_fraction for p in records if isinstance(p.other_cpu_fraction, int | float)]
    if loads and rung_load is not None:
        then = max(loads)
        if (then > OTHERS_WARN) != (rung_load > OTHERS_WARN):
            reasons.append(
                f"other processes used {then:.0%} of the CPUs during the probes and "
                f"{rung_load:.0%} during this rung"
            )
    if factor is not None and not 1 / SPEED_MOVED <= factor <= SPEED_MOVED:
        reasons.append(
            f"this rung's worker ran the probes' reference loop at {factor:.2f}× their time "
            "(the unit costs are scaled by it)"
        )
    if isinstance(mix_error, int | float) and mix_error > MIX_TRUSTED:
        reasons.append(
            f"the loop_mix fit missed one of its loops by {mix_error:.0%} (over "
            f"{MIX_TRUSTED:.0%}), so its bytecode is priced one event at a time"
        )
    if not reasons:
        return ""
    return (
        "The machine may have changed since the probes: "
        + "; ".join(reasons)
        + ". `overhead-tui probes --refresh` measures them again."
    )
