"""Compare two runs rung by rung: the medians, their ratio and a rank test on the samples.

For every scenario present in both runs, :func:`compare_runs` gives run A's and run B's median
time per kernel call (s), the ratio B / A (above 1: B is slower) and whether the two sets of
timed samples differ significantly.

The test.  pyperf's ``compare_to`` decides significance with a two-sample, two-tailed Student's
t-test at the 95 % level (``pyperf._utils.is_significant``).  Here the test is the
Mann-Whitney U rank test (``scipy.stats.mannwhitneyu``, two-sided), for two reasons:

- timings are not normally distributed: they are bounded below by the uninterrupted time and
  skewed to the right, and a t-test assumes normality (or many more samples than our 7);
- on a shared virtual machine one sample may be hit by another tenant or by hypervisor steal;
  one such outlier moves a mean and inflates a variance, while a rank test only sees that it
  is the largest value.

Ranks need no normality and are robust to such outliers.  With fewer than
:data:`MIN_SAMPLES` samples in either run no test is made (``p_value`` is None).  Note that
the exact test cannot reach p < 0.05 with three samples on each side (the smallest two-sided p
is 0.1); four or more on each side can.

Runs from different machines, interpreters (``--python``), dtypes or sizes compare cleanly:
the facts that differ are listed in :attr:`Comparison.differences`, and a rung measured at a
different matrix order n in the two runs is compared per flop (time / 2n³).  A machine fact
only one run recorded (e.g. numba's version, recorded only when a numba rung ran) is not a
difference: it is listed in :attr:`Comparison.recorded_only`.  A size sweep (``overhead-tui
sweep``) compares through its ``scenarios``, each rung at its largest measured n (or at the
failed point that ended it); :func:`run_notes` says so, and says when A and B are the same run.

No UI imports here: the command line and the *Compare* screen both render a
:class:`Comparison`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from overhead_tui.summary.records import RunSummary, ScenarioResult

DEFAULT_ALPHA = 0.05
"""Significance level: a p-value below it is significant."""
MIN_SAMPLES = 3
"""Fewest timed samples per run for the rank test to be made."""
SAME_WITHIN = 0.005
"""A significant change of less than this fraction (0.5 %) is reported as ``same``: it rounds
to 1.00× and is below what a benchmark on a shared machine can claim."""

COMPARED_FACTS: tuple[str, ...] = (
    "machine.cpu_model",
    "machine.logical_cpus",
    "machine.effective_cpus",
    "machine.platform",
    "machine.python.implementation",
    "machine.python.version",
    "machine.python.executable",
    "machine.numpy_version",
    "machine.numba_version",
    "machine.blas.library",
    "machine.blas.version",
    "machine.blas.architecture",
    "machine.blas.threads",
    "settings.dtype",
    "settings.size",
    "settings.repeats",
    "settings.min_sample_s",
    "settings.seed",
    "sweep.sizes",
    "sweep.budget_s",
    "finished",
)
"""Machine facts and settings listed when they differ, as dotted paths into the summary
(``sweep.*`` into its ``sweep`` dict; ``finished``: False when the run was interrupted).
``settings.python`` is not one: whether ``--python`` was given says nothing when it named the
same interpreter; ``machine.python.*`` records the one the workers ran."""

SWEEP_SIZE = "swept"
"""How ``settings.size`` reads for a size sweep (its ``None`` there is not one size per rung)."""


class SettingDifference(NamedTuple):
    """A machine fact or setting whose value differs between run A and run B."""

    field: str
    """Dotted path into the summary, e.g. ``settings.dtype`` or ``machine.python.version``."""
    value_a: object
    value_b: object


@dataclass(frozen=True)
class RungComparison:
    """One scenario present in both runs.

    Times are seconds per kernel call, each at its own run's matrix order (``n_a``, ``n_b``).
    ``ratio`` is B over A (above 1: B is slower); per flop when n differs (``per_flop``).  It is
    None unless both sides are ``ok`` with a median: a failed or invalid side shows its status,
    never a speed.
    """

    name: str
    rung: int
    status_a: str
    status_b: str
    median_a_s: float | None
    median_b_s: float | None
    ratio: float | None
    n_a: int
    n_b: int
    p_value: float | None
    """Two-sided Mann-Whitney U p-value; None when not tested."""
    significant: bool
    """p_value < alpha (False when not tested)."""
    note: str = ""
    """Why something is missing or how it was compared, e.g. ``invalid in B``."""
    u_statistic: float | None = None
    """Mann-Whitney U of A's samples against B's (None when not tested)."""
    per_flop: bool = False
    """True when n differs and the ratio and the test use time per flop."""
    reachable: bool = True
    """The rank test could give p < alpha with these sample counts (:func:`smallest_p`)."""
    sample_count_a: int = 0
    """Timed samples of run A (the rank test's first group)."""
    sample_count_b: int = 0

    @property
    def compared(self) -> bool:
        """True when both sides have a speed, so the row carries a ratio."""
        return self.ratio is not None

    @property
    def verdict(self) -> str:
        """``faster`` / ``slower`` (B against A), ``same``, ``not significant``,
        ``too few samples`` or ``not compared`` (a side without a speed)."""
        if self.ratio is None:
            return "not compared"
        if self.p_value is None or not self.reachable:
            return "too few samples"
        if not self.significant:
            return "not significant"
        if abs(self.ratio - 1.0) < SAME_WITHIN:
            return "same"
        return "slower" if self.ratio > 1.0 else "faster"


@dataclass
class Comparison:
    """Run B against run A: one row per rung in both, and what else differs."""

    rows: list[RungComparison]
    """Scenarios present in both runs, in run A's order."""
    differences: list[SettingDifference]
    """Machine facts and settings that differ (see :data:`COMPARED_FACTS`)."""
    recorded_only: list[SettingDifference] = field(default_factory=list)
    """Machine facts one run did not record (None there): not differences."""
    only_in_a: list[str] = field(default_factory=list)
    """Names of scenarios only run A has."""
    only_in_b: list[str] = field(default_factory=list)
    alpha: float = DEFAULT_ALPHA
    label_a: str = "A"
    """How run A is named to the user (e.g. its path)."""
    label_b: str = "B"
    sweep_a: bool = False
    """Run A is a size sweep (its summary has ``sweep``)."""
    sweep_b: bool = False
    same_run: bool = False
    """A and B are the same run (identical content, e.g. one file given twice)."""


def compare_runs(
    a: RunSummary,
    b: RunSummary,
    alpha: float = DEFAULT_ALPHA,
    *,
    labels: tuple[str, str] = ("A", "B"),
) -> Comparison:
    """Compare run ``b`` against run ``a`` rung by rung.

    Args:
        a: the reference run.
        b: the run compared with it (ratios are B / A).
        alpha: significance level of the rank test, 0 < alpha < 1.
        labels: how the two runs are named to the user.

    Raises:
        ValueError: ``alpha`` is not strictly between 0 and 1.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (exclusive), not {alpha}")
    by_name_a = {s.name: s for s in a.scenarios}
    by_name_b = {s.name: s for s in b.scenarios}
    rows = [
        compare_rung(result, by_name_b[result.name], alpha)
        for result in a.scenarios
        if result.name in by_name_b
    ]
    return Comparison(
        rows=rows,
        differences=setting_differences(a, b),
        recorded_only=recorded_only(a, b),
        only_in_a=[s.name for s in a.scenarios if s.name not in by_name_b],
        only_in_b=[s.name for s in b.scenarios if s.name not in by_name_a],
        alpha=alpha,
        label_a=labels[0],
        label_b=labels[1],
        sweep_a=a.sweep is not None,
        sweep_b=b.sweep is not None,
        same_run=a.dumps() == b.dumps(),
    )


def compare_rung(a: ScenarioResult, b: ScenarioResult, alpha: float) -> RungComparison:
    """Compare one scenario's result in run A with its result in run B (see
    :class:`RungComparison`)."""
    base: dict[str, Any] = {
        "name": a.name,
        "rung": a.rung,
        "status_a": a.status,
        "status_b": b.status,
        "median_a_s": a.median_s if a.has_speed else None,
        "median_b_s": b.median_s if b.has_speed else None,
        "n_a": a.n,
        "n_b": b.n,
        "sample_count_a": len(a.samples_s),
        "sample_count_b": len(b.samples_s),
    }
    if not (a.has_speed and b.has_speed):
        return RungComparison(
            **base, ratio=None, p_value=None, significant=False, note=_status_note(a, b)
        )
    per_flop = a.n != b.n
    ratio = _time_per_unit(b, per_flop) / _time_per_unit(a, per_flop)
    notes = [f"n differs: {a.n} vs {b.n}, compared per flop"] if per_flop else []
    test = rank_test(_samples(a, per_flop), _samples(b, per_flop))
    reachable = False
    if test is None:
        notes.append(_too_few_note(a, b))
        u_statistic, p_value = None, None
    else:
        u_statistic, p_value = test
        counts = (len(a.samples_s), len(b.samples_s))
        floor = smallest_p(*counts)
        reachable = floor < alpha
        if not reachable:
            notes.append(
                f"{counts[0]} and {counts[1]} samples: the rank test cannot reach p < {alpha:g} "
                f"(its smallest p is {floor:.2g}); --repeats {samples_to_reach(alpha)} or more"
            )
    return RungComparison(
        **base,
        ratio=ratio,
        p_value=p_value,
        reachable=reachable,
        significant=p_value is not None and p_value < alpha,
        note="; ".join(notes),
        u_statistic=u_statistic,
        per_flop=per_flop,
    )


def smallest_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p-value the rank test (Mann-Whitney U, exact, no ties) can give
    two sets of ``n_a`` and ``n_b`` samples: 2 / C(n_a + n_b, n_a) (3 and 3: 0.1)."""
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def samples_to_reach(alpha: float) -> int:
    """The fewest samples on each side with which the rank test can give p < ``alpha``
    (0.05: 4; 0.01: 5)."""
    count = MIN_SAMPLES
    while smallest_p(count, count) >= alpha:
        count += 1
    return count


def rank_test(samples_a: list[float], samples_b: list[float]) -> tuple[float, float] | None:
    """Two-sided Mann-Whitney U test of two sets of timings (any one unit, e.g. s).

    Returns:
        (U of ``samples_a``, p-value), or None when either set has fewer than
        :data:`MIN_SAMPLES` values.  Identical constant samples give p = 1.
    """
    if min(len(samples_a), len(samples_b)) < MIN_SAMPLES:
        return None
    from scipy.stats import mannwhitneyu  # deferred: 0.5 s that every other command would pay

    result = mannwhitneyu(samples_a, samples_b, alternative="two-sided")
    p_value = float(result.pvalue)
    if math.isnan(p_value):  # NaN: no variation at all, so no evidence of a difference
        p_value = 1.0
    return float(result.statistic), p_value


def fact_value(summary: RunSummary, path: str) -> object:
    """The value at dotted ``path`` in ``summary`` (attributes, then dict keys), or None
    where a part is missing (e.g. ``sweep.sizes`` of a run that is not a sweep)."""
    value: object = summary
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        if value is None:
            return None
    return value


def _unrecorded(path: str, value_a: object, value_b: object) -> bool:
    """A machine fact one side did not record (None there, a value on the other)."""
    return path.startswith("machine.") and (value_a is None) != (value_b is None)


def _comparable(summary: RunSummary, path: str) -> object:
    """A fact's value for comparing: a sweep's ``settings.size`` (None) is :data:`SWEEP_SIZE`,
    so a sweep differs from a run at each scenario's own size."""
    value = fact_value(summary, path)
    if value is None and path == "settings.size" and summary.sweep:
        return SWEEP_SIZE
    return value


def _differing_facts(a: RunSummary, b: RunSummary) -> list[SettingDifference]:
    pairs = ((path, _comparable(a, path), _comparable(b, path)) for path in COMPARED_FACTS)
    return [SettingDifference(*pair) for pair in pairs if pair[1] != pair[2]]


def setting_differences(a: RunSummary, b: RunSummary) -> list[SettingDifference]:
    """The machine facts and settings of :data:`COMPARED_FACTS` whose values differ; a
    machine fact only one run recorded is not one (see :func:`recorded_only`)."""
    return [d for d in _differing_facts(a, b) if not _unrecorded(*d)]


def recorded_only(a: RunSummary, b: RunSummary) -> list[SettingDifference]:
    """Machine facts of :data:`COMPARED_FACTS` that one run recorded and the other did not
    (None there), e.g. numba's version, recorded only when a numba rung ran."""
    return [d for d in _differing_facts(a, b) if _unrecorded(*d)]


def _time_per_unit(result: ScenarioResult, per_flop: bool) -> float:
    """Median time per call (s), or per flop (s/flop) when ``per_flop``."""
    if result.median_s is None:
        raise ValueError(f"{result.name} has no median time")
    median = float(result.median_s)
    return median / result.flops if per_flop else median


def _samples(result: ScenarioResult, per_flop: bool) -> list[float]:
    """Timed samples per call (s), or per flop (s/flop) when ``per_flop``."""
    return [s / result.flops for s in result.samples_s] if per_flop else list(result.samples_s)


def _too_few_note(a: ScenarioResult, b: ScenarioResult) -> str:
    """``2 samples in B; the test needs 3`` (naming each run below :data:`MIN_SAMPLES`)."""
    short = [
        f"{len(r.samples_s)} sample{'' if len(r.samples_s) == 1 else 's'} in {side}"
        for side, r in (("A", a), ("B", b))
        if len(r.samples_s) < MIN_SAMPLES
    ]
    return f"{' and '.join(short)}; the test needs {MIN_SAMPLES}"


def _status_note(a: ScenarioResult, b: ScenarioResult) -> str:
    """``invalid in B``, ``skipped in A``, ``error in A, timeout in B``, ``skipped in A and B``."""
    if not a.has_speed and not b.has_speed and a.status == b.status:
        return f"{a.status} in A and B"
    parts = [f"{r.status} in {side}" for side, r in (("A", a), ("B", b)) if not r.has_speed]
    return ", ".join(parts)


# -- text shared by the command line and the screen -------------------------------------------
