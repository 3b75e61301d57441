"""The cores a rung carrying ``parallel`` ran on while its samples were timed: what its
threads got from the scheduler (its samples' thread counts and CPU times), less what perf found
them waiting in their threading runtime; the compiled-rung model (``analysis.compiled``)
divides its per-core bounds by it."""

from __future__ import annotations

import statistics

from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.records import ScenarioResult


def timed_cores(result: ScenarioResult) -> float | None:
    """The cores a rung's threads got while its samples were timed: the median over its
    samples of its busy threads × the smallest share of runnable time one of them got
    (``sample_thread_cores``: the slowest thread sets an evenly split kernel's time), else of
    the worker's CPU seconds over wall seconds (``sample_cores``: counts a thread spinning at
    a barrier as working); None from older files.  Under 1 when another process took part
    of its core."""
    for cores in (result.sample_thread_cores, result.sample_cores):
        if cores:
            return statistics.median(cores)
    return None


def runtime_wait_share(result: ScenarioResult) -> float | None:
    """The share of a rung's CPU samples perf found in its threading runtime (libgomp's
    barriers, OpenBLAS's thread server, ``sched_yield``: ``profilers.layermap``'s
    ``parallel``), where perf profiled it in the run; None otherwise.  A thread spinning at a
    barrier is on a CPU without working: beside a busy neighbour, with two threads stacked on
    the one free core, each spins through its partner's time slice (figures: ``docs/ladder.md``,
    "Library rungs and their threads")."""
    if "parallel" not in result.layers or result.profile is None:
        return None
    perf = result.profile.backends.get("perf")
    layers = getattr(perf, "layers", None) or {}
    share = layers.get("parallel")
    return min(0.95, share) if isinstance(share, int | float) and share > 0 else None


def working_cores(got: float | None, result: ScenarioResult) -> float | None:
    """The cores its threads got (:func:`timed_cores`) less the share perf found them
    waiting in the threading runtime (:func:`runtime_wait_share`), where it profiled."""
    share = runtime_wait_share(result)
    return got if got is None or share is None else got * (1.0 - share)


def parallel_cores(result: ScenarioResult, costs: UnitCosts) -> float:
    """Cores a rung carrying ``parallel`` runs on: the SIMD probe's all-cores over one-core
    FP rate, or fewer where its threads measurably got fewer while timed (a busy neighbour,
    a library that kept to one thread); 1 for other rungs."""
    if "parallel" not in result.layers or not costs.fp_issue_one or not costs.fp_issue_all:
        return 1.0
    machine = max(1.0, costs.fp_issue_all / costs.fp_issue_one)
    got = working_cores(timed_cores(result), result)
    return machine if got is None else max(0.05, min(machine, got))
