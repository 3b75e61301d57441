"""Budget arithmetic of sweeps: what a point will cost, predicted from the last one, and
each scenario's fair share of what is left."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from overhead_tui.kit.timing import calibrate_loops
from overhead_tui.summary.records import ScenarioResult


@dataclass(frozen=True)
class PointCost:
    """What a finished point says about the cost of the next one.

    Attributes:
        size: the point's swept size (the matrix order n of a sweep point, the batch m of a
            ``shapes`` point).
        median_s: median time of one kernel call at ``n`` (s).
        overhead_s: the worker's wall time beyond its timed kernel calls: start-up, imports,
            JIT compile, input generation, validation, counting (s, ≥ 0).
    """

    size: int
    median_s: float
    overhead_s: float


def timed_calls(call_s: float, repeats: int, min_sample_s: float) -> int:
    """Kernel calls a worker makes to time a kernel whose call lasts ``call_s`` (s).

    The first call and one warm call, then ``repeats`` samples plus one warm-up sample of
    ``loops`` calls each, ``loops`` calibrated so a sample lasts ≥ ``min_sample_s`` (s).
    """
    loops = calibrate_loops(call_s, min_sample_s)
    return 2 + (repeats + 1) * loops


def predict_point_s(last: PointCost, next_n: int, repeats: int, min_sample_s: float) -> float:
    """Predicted wall time (s) of the point at ``next_n`` from the point before it.

    Time per call scales as n³: ``last.median_s × (next_n / last.size)³``, times the calls the
    samples need (:func:`timed_calls`), plus the overhead observed at the last point.
    """
    call_s = last.median_s * (next_n / last.size) ** 3
    return timed_calls(call_s, repeats, min_sample_s) * call_s + last.overhead_s


def budget_allows(
    last: PointCost | None,
    next_n: int,
    remaining_s: float,
    repeats: int,
    min_sample_s: float,
    predict_s: Callable[[PointCost, int, int, float], float] = predict_point_s,
) -> tuple[bool, float | None]:
    """Whether the point at ``next_n`` (n, or the batch m) fits in ``remaining_s`` (s) of the
    scenario's share, its wall time predicted by ``predict_s`` (the n³ scaling by default).

    Returns:
        (run it?, predicted wall time in s or None).  With no earlier point (the first,
        smallest size) there is nothing to predict from: it always runs, so every scenario
        has at least one point even when earlier ones overspent the budget.
    """
    if last is None:
        return True, None
    if remaining_s <= 0:
        return False, None
    predicted = predict_s(last, next_n, repeats, min_sample_s)
    return predicted <= remaining_s, predicted


def fair_share_s(budget_s: float, spent_s: float, scenarios_left: int) -> float:
    """The share (s) of the scenario starting now: unspent budget over the scenarios left
    (this one included).  Returns 0 when nothing is left or no scenario remains."""
    if scenarios_left <= 0:
        return 0.0
    return max(0.0, budget_s - spent_s) / scenarios_left


def point_overhead_s(result: ScenarioResult) -> float:
    """A finished point's wall time beyond its timed kernel calls (s, ≥ 0; 0 if unknown).

    Timed calls: one warm call (the median), the warm-up and timed samples (per-call values
    × ``loops``).  The first call's JIT compile is not among them: it recurs in every worker.
    """
    if result.wall_s is None or result.median_s is None:
        return 0.0
    loops = result.loops or 1
    timed = result.median_s + loops * (sum(result.warmups_s) + sum(result.samples_s))
    return max(0.0, result.wall_s - timed)
