"""Statistics of timing samples and pyperf-style stability checks.

Thresholds follow pyperf's ``format_checks`` (pyperf/_cli.py): a coefficient of variation of
10 % or more, a minimum or maximum more than 50 % away from the median, or a sample shorter
than 1 ms make a result unstable.  Warnings are stored with the result and shown next to it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from overhead_tui.machine.load import OTHERS_WARN

CV_WARN = 0.10
"""CV (stdev / mean) at or above which a result is flagged unstable (pyperf: 10 %)."""
SPREAD_WARN = 0.50
"""Relative distance of min or max from the median that is flagged (pyperf: 50 %)."""
SHORT_SAMPLE_S = 1e-3
"""A timed sample (all loops together) shorter than this is flagged (pyperf: 1 ms)."""
STEAL_WARN = 0.05
"""Hypervisor steal time share above which a result is flagged (our choice: 5 %)."""
OBSERVER_WARN = 0.02
"""Fraction of one CPU the observing process (the app or the CLI) may use while samples are
timed before the result is flagged (issue 11: 2 %; a quiet observer uses well under 1 %)."""

UNSTABLE_TIMING = ("unstable: CV", "min is ", "max is ", "samples too short")
"""How the warnings of :func:`stability_warnings` about the samples themselves begin (the
timing is unstable); the others say the machine was busy while they were timed (steal, other
processes, the observer)."""


def unstable_timing(warning: str) -> bool:
    """True for a warning about the samples themselves (:data:`UNSTABLE_TIMING`), False for
    one about a busy machine (a result's ``warnings`` hold both kinds)."""
    return warning.startswith(UNSTABLE_TIMING)


@dataclass(frozen=True)
class SampleStats:
    """Summary statistics of per-call times (all in seconds; ``cv`` a fraction)."""

    min_s: float
    median_s: float
    iqr_s: float
    stdev_s: float
    mean_s: float
    max_s: float
    cv: float


def describe(samples_s: Sequence[float]) -> SampleStats:
    """Compute min, median, IQR (Q3 − Q1, inclusive quartiles), stdev, mean, max and CV.

    Args:
        samples_s: per-call times in seconds, at least one.

    Raises:
        ValueError: ``samples_s`` is empty.
    """
    if not samples_s:
        raise ValueError("no samples")
    median = statistics.median(samples_s)
    mean = statistics.fmean(samples_s)
    if len(samples_s) >= 2:
        q1, _, q3 = statistics.quantiles(samples_s, n=4, method="inclusive")
        stdev = statistics.stdev(samples_s)
    else:
        q1 = q3 = samples_s[0]
        stdev = 0.0
    return SampleStats(
        min_s=min(samples_s),
        median_s=median,
        iqr_s=q3 - q1,
        stdev_s=stdev,
        mean_s=mean,
        max_s=max(samples_s),
        cv=stdev / mean if mean > 0 else 0.0,
    )


def stability_warnings(
    stats: SampleStats,
    loops: int,
    steal_fraction: float | None = None,
    other_cpu_fraction: float | None = None,
    observer_fraction: float | None = None,
    observer: str | None = None,
) -> list[str]:
    """Return human-readable warnings for an unstable result (empty when it looks stable).

    Args:
        stats: the samples' statistics.
        loops: kernel calls per sample; a sample lasts ``loops × per-call time``.
        steal_fraction: CPU steal share while the scenario ran, if known.
        other_cpu_fraction: share of all CPUs other processes used meanwhile, if known.
        observer_fraction: fraction of one CPU the observing process used while the samples
            were timed, if known; ``observer`` names it ("the app", "overhead-tui").
    """
    warnings: list[str] = []
    if stats.cv >= CV_WARN:
        warnings.append(f"unstable: CV {stats.cv:.0%} (≥ {CV_WARN:.0%})")
    median = stats.median_s
    if median > 0:
        if (median - stats.min_s) / median > SPREAD_WARN:
            warnings.append(f"min is {(median - stats.min_s) / median:.0%} below the median")
        if (stats.max_s - median) / median > SPREAD_WARN:
            warnings.append(f"max is {(stats.max_s - median) / median:.0%} above the median")
    if stats.min_s * loops < SHORT_SAMPLE_S:
        shown_ms = min(round(stats.min_s * loops * 1e3, 2), 0.99)  # never "1.00 ms < 1 ms"
        warnings.append(f"samples too short ({shown_ms:.2f} ms < 1 ms)")
    if steal_fraction is not None and steal_fraction > STEAL_WARN:
        warnings.append(f"CPU steal {steal_fraction:.0%} while running (shared VM)")
    if other_cpu_fraction is not None and other_cpu_fraction > OTHERS_WARN:
        warnings.append(f"other processes used {other_cpu_fraction:.0%} of the CPUs meanwhile")
    if observer_fraction is not None and observer_fraction > OBSERVER_WARN:
        who = observer or "the observing process"
        warnings.append(
            f"{who} itself used {observer_fraction:.1%} of one CPU while the samples were timed"
        )
    return warnings
