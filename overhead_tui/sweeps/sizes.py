"""Size sweeps: GFLOP/s against the matrix order n, per scenario, within a time budget.

Each (scenario, n) point is one ordinary :class:`~overhead_tui.engine.runner.Runner` run of
that one scenario with ``Settings(size=n)``: its own worker process, timed, validated, with its
own run folder ``points/<scenario>-<n>/`` inside the sweep's run directory.  Sizes go up in
increasing order.  The sweep's ``summary.json`` (``RunSummary.sweep``, and per scenario its
last point in ``scenarios``: the largest measured n, or the failed point that ended it) is
rewritten atomically after every point.

**The machine's limits.**  Like ``run``, a sweep first loads the probes (the per-machine cache,
or measured now when it is stale, yielding ``ProbeStarted``) unless ``settings.probes`` is
False, stores them in ``summary.probes`` and applies
:func:`overhead_tui.machine.limits.apply_limits`
(clock, peaks, bandwidth in ``machine``; arithmetic intensity and % of peak per rung).  The
probes are not charged to the budget.  The points themselves run without probes: no model
breakdowns per point.

**Budget.**  The total budget (s) is split fairly: each scenario, when it starts, gets the
unspent budget divided by the scenarios still to run (so time a fast scenario leaves over goes
to the later ones).  Before each size after the first, the point's cost is predicted from the
last point (time per call scales as n³; the calls the timed samples need; the worker overhead
observed at the last point, JIT compile included) and the scenario stops with reason
``budget`` when the prediction exceeds what is left of its share; its first (smallest)
size always runs, so every scenario has a point.  A point that fails (invalid,
impossible, error, timeout, crashed, skipped) ends that scenario's sweep, its status being the
reason; sizes above a scenario's ``MAX_SIZE`` end it with reason ``max_size``.

The budget logic is pure functions (:func:`predict_point_s`, :func:`budget_allows`,
:func:`fair_share_s`), tested on fake timings.  No Textual here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path

from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import ScenarioResult, Settings
from overhead_tui.summary.sweep import SweepPoint, SweepRecord
from overhead_tui.sweeps.budget import predict_point_s
from overhead_tui.sweeps.budgeted import BudgetedSweep, SweepAxis

DEFAULT_SIZES: tuple[int, ...] = (8, 16, 32, 64, 128, 256, 512, 1024)
"""Matrix orders of a sweep when ``--sizes`` is not given (powers of two)."""
DEFAULT_SCENARIOS: tuple[str, ...] = (
    "python_naive",
    "numba_ikj",
    "numpy_matmul_1thread",
    "numpy_matmul",
)
"""A short set with the interesting shapes: the interpreter's flat line, a compiled loop
falling off the cache, BLAS on one core, and BLAS with every thread (its threading step)."""
DEFAULT_BUDGET_S = 60.0
"""Total time budget of a sweep (s), split among its scenarios."""
SWEEP_REPEATS = 5
"""Timed samples per point (fewer than a ladder run: many points, a fixed budget)."""
SWEEP_MIN_SAMPLE_S = 0.02
"""Shortest timed sample of a point (s)."""
"""Point statuses that end a scenario's sweep (the status is recorded as the reason)."""


# -- events ---------------------------------------------------------------------------------


def point_record(result: ScenarioResult) -> SweepPoint:
    """The summary's record of one point (speeds, samples and warnings only when ok)."""
    speed = result.has_speed
    return SweepPoint(
        scenario=result.name,
        n=result.n,
        status=result.status,
        median_s=result.median_s if speed else None,
        gflops=result.gflops if speed else None,
        samples_s=list(result.samples_s) if speed else [],
        error=result.error,
        wall_s=result.wall_s,
        warnings=list(result.warnings) if speed else [],
        dtype=result.dtype,
    )


# -- the sweep ------------------------------------------------------------------------------


class SizeSweep(BudgetedSweep):
    """A size sweep: :class:`BudgetedSweep` along the matrix order n.

    ``sizes`` are the orders (ascending; a size above a scenario's ``MAX_SIZE`` ends its
    sweep); ``settings.size`` is set per point, ``probes`` / ``refresh_probes`` load (or
    re-measure) the probes once, before the budget starts.  The other arguments are
    :class:`BudgetedSweep`'s.
    """

    def __init__(
        self,
        specs: Sequence[ScenarioSpec],
        sizes: Sequence[int],
        budget_s: float,
        settings: Settings,
        run_dir: Path,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        names = [s.name for s in specs]
        swept = replace(settings, size=None, scenarios=names)
        self.sizes = sorted(set(sizes))
        axis = SweepAxis(
            name="n",
            setting="size",
            kind="sweep",
            record=SweepRecord(sizes=list(self.sizes), budget_s=budget_s, dtype=settings.dtype),
            started={"sizes": self.sizes, "budget_s": budget_s},
            predict_s=predict_point_s,
            point=lambda result, n: point_record(result),
            log_fields=asdict,
            max_size_ends=True,
        )
        super().__init__(specs, sizes, budget_s, swept, run_dir, axis, clock)
