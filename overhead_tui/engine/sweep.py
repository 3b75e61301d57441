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

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import overhead_tui
from overhead_tui.engine.budget import (
    PointCost,
    budget_allows,
    fair_share_s,
    point_overhead_s,
)
from overhead_tui.engine.events import ProbeStarted, ScenarioProgress
from overhead_tui.engine.probe_runs import load_run_probes
from overhead_tui.engine.results import compute_vs_dense
from overhead_tui.engine.run_log import log_event
from overhead_tui.engine.runner import Runner
from overhead_tui.engine.spawn import Cancel
from overhead_tui.machine.cpu import read_cpu_model
from overhead_tui.machine.host import describe_machine
from overhead_tui.machine.limits import apply_limits
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import MachineInfo, RunSummary, ScenarioResult, Settings

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
FAILED = ("invalid", "impossible", "error", "timeout", "crashed", "skipped")
"""Point statuses that end a scenario's sweep (the status is recorded as the reason)."""


# -- the budget: pure functions -------------------------------------------------------------


# -- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepStarted:
    """The sweep began; ``summary`` has no points yet."""

    summary: RunSummary


@dataclass(frozen=True)
class PointStarted:
    """A worker is starting for ``scenario`` at ``n``.

    ``predicted_s`` is the predicted wall time (s; None for a scenario's first size);
    ``remaining_s`` what is left of the scenario's share (s); ``index``/``total`` count the
    scenarios (from 0).
    """

    scenario: str
    n: int
    predicted_s: float | None
    remaining_s: float
    index: int
    total: int


@dataclass(frozen=True)
class PointFinished:
    """A point's result: ``point`` is the summary's record (see :func:`point_record`),
    ``result`` the full scenario result of its worker."""

    point: dict[str, Any]
    result: ScenarioResult


@dataclass(frozen=True)
class ScenarioStopped:
    """A scenario's sweep ended before its last size: ``reason`` is ``budget``,
    ``max_size``, ``cancelled`` or a failed point's status; ``detail`` says why in words."""

    scenario: str
    reason: str
    detail: str


@dataclass(frozen=True)
class SweepFinished:
    """The sweep ended (``cancelled`` after Ctrl-C or :meth:`Sweep.cancel`)."""

    summary: RunSummary
    cancelled: bool = False


SweepEvent = (
    SweepStarted
    | ProbeStarted
    | PointStarted
    | ScenarioProgress
    | PointFinished
    | ScenarioStopped
    | SweepFinished
)


def point_record(result: ScenarioResult) -> dict[str, Any]:
    """The summary's record of one point: scenario, n, status, median_s (s), gflops
    (GFLOP/s), samples_s (s per call), error, wall_s (s)."""
    return {
        "scenario": result.name,
        "n": result.n,
        "status": result.status,
        "median_s": result.median_s if result.has_speed else None,
        "gflops": result.gflops if result.has_speed else None,
        "samples_s": list(result.samples_s) if result.has_speed else [],
        "error": result.error,
        "wall_s": result.wall_s,
        "warnings": list(result.warnings) if result.has_speed else [],
    }


# -- the sweep ------------------------------------------------------------------------------


class Sweep:
    """Runs a size sweep: every scenario at every size, smallest first, within a budget.

    Args:
        specs: scenarios, swept one after the other in this order.
        sizes: matrix orders (ascending; sizes above a scenario's maximum end its sweep).
        budget_s: total time budget (s), split fairly (see the module docstring).
        settings: dtype, repeats, min_sample_s, seed, timeout_s, python for every point
            (``size`` is set per point); ``probes`` / ``refresh_probes``: load (or
            re-measure) the probes once, before the budget starts, for the machine's limits.
        run_dir: the sweep's run directory (``summary.json``, ``events.jsonl``, ``points/``).
        clock: monotonic clock (s); injectable for tests.

    ``events()`` is a generator consumed from one thread; ``cancel()`` may be called from any
    other thread (or a signal handler) and stops the running worker.
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
        self.specs = list(specs)
        self.sizes = sorted(set(sizes))
        self.budget_s = budget_s
        self.settings = replace(settings, size=None, scenarios=self.names)
        self.run_dir = Path(run_dir)
        self.clock = clock
        self._cancel = threading.Event()
        self._commands = Cancel()
        """Stops the probe workers when the sweep is cancelled."""
        self._lock = threading.Lock()
        self._runner: Runner | None = None
        self.cpu = read_cpu_model()
        self.summary = RunSummary(
            machine=describe_machine(),
            settings=self.settings,
            created=datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
            tool={"name": "overhead-tui", "version": overhead_tui.__version__},
            run_dir=str(self.run_dir),
            sweep={
                "sizes": list(self.sizes),
                "budget_s": budget_s,
                "dtype": settings.dtype,
                "points": [],
                "stopped": {},
            },
        )

    @property
    def names(self) -> list[str]:
        """The swept scenarios' names, in order."""
        return [s.name for s in self.specs]

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop the sweep: the running worker is killed, no further point starts."""
        self._cancel.set()
        self._commands.set()
        with self._lock:
            if self._runner is not None:
                self._runner.cancel()

    def events(self) -> Iterator[SweepEvent]:
        """Run the sweep and yield its events (``ProbeStarted`` while probes are measured,
        the workers' ``ScenarioProgress``).  ``summary.wall_s`` (s) includes the probes; the
        budget starts after them.

        Raises:
            OSError: the run directory cannot be written.
        """
        started = self.clock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / "events.jsonl", "a", encoding="utf-8") as log:
            log_event(
                log, {"event": "sweep_started", "sizes": self.sizes, "budget_s": self.budget_s}
            )
            self._save()
            yield SweepStarted(self.summary)
            try:
                yield from self._load_probes(log)
                self._derive()
                self._save()
                budget_started = self.clock()  # probes are not charged to the budget
                for index, spec in enumerate(self.specs):
                    if self.cancelled:
                        yield self._stop(
                            spec.name, "cancelled", "not run: stopped by the user", log
                        )
                        continue
                    share = fair_share_s(
                        self.budget_s, self.clock() - budget_started, len(self.specs) - index
                    )
                    yield from self._sweep_one(spec, index, share, log)
            finally:
                self.summary.finished = not self.cancelled
                self.summary.wall_s = self.clock() - started
                self._derive()
                self._save()
                log_event(log, {"event": "sweep_finished", "cancelled": self.cancelled})
        yield SweepFinished(self.summary, cancelled=self.cancelled)

    def _load_probes(self, log: IO[str]) -> Iterator[SweepEvent]:
        """Probe unit costs into ``summary.probes``, as ``run`` does (not per point)."""
        probes = yield from load_run_probes(self.settings, self._commands, log)
        if probes is not None:
            self.summary.probes = probes

    def _derive(self) -> None:
        """Recompute what depends on several results: × dense and the machine's limits (peaks,
        bandwidth, clock; each rung's arithmetic intensity and % of peak)."""
        compute_vs_dense(self.summary)
        apply_limits(self.summary, self.cpu)

    def _sweep_one(
        self, spec: ScenarioSpec, index: int, share_s: float, log: IO[str]
    ) -> Iterator[SweepEvent]:
        began = self.clock()
        last: PointCost | None = None
        for n in self.sizes:
            if n > spec.max_size:
                yield self._stop(
                    spec.name, "max_size", f"n = {n} is above its maximum of {spec.max_size}", log
                )
                return
            remaining = share_s - (self.clock() - began)
            allowed, predicted = budget_allows(
                last, n, remaining, self.settings.repeats, self.settings.min_sample_s
            )
            if not allowed:
                why = (
                    f"n = {n} would take about {predicted:.1f} s, {max(remaining, 0):.1f} s "
                    "of its share left"
                    if predicted is not None
                    else f"its share of the budget ({share_s:.1f} s) is spent"
                )
                yield self._stop(spec.name, "budget", why, log)
                return
            log_event(
                log,
                {
                    "event": "point_started",
                    "name": spec.name,
                    "n": n,
                    "predicted_s": predicted,
                    "remaining_s": remaining,
                },
            )
            yield PointStarted(spec.name, n, predicted, remaining, index, len(self.specs))
            result = yield from self._run_point(spec, n)
            if self.cancelled and result.status != "ok":
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return
            point = point_record(result)
            self.summary.sweep["points"].append(point)  # type: ignore[index]
            self._keep(result)
            self._save()
            log_event(log, {"event": "point", **point})
            yield PointFinished(point, result)
            if result.status != "ok" or result.median_s is None:
                yield self._stop(spec.name, result.status, result.error or result.status, log)
                return
            last = PointCost(n, result.median_s, point_overhead_s(result))
            if self.cancelled:
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return

    def _run_point(self, spec: ScenarioSpec, n: int) -> Iterator[SweepEvent]:
        """Run one point through a Runner; returns (via StopIteration) its result."""
        settings = replace(
            self.settings, size=n, scenarios=[spec.name], probes=False, refresh_probes=False
        )
        runner = Runner([spec], settings, self.run_dir / "points" / f"{spec.name}-{n}")
        with self._lock:
            self._runner = runner
            if self.cancelled:
                runner.cancel()
        try:
            for event in runner.events():
                if isinstance(event, ScenarioProgress):
                    yield event
        finally:
            with self._lock:
                self._runner = None
        self._merge_machine(runner.summary.machine)
        return runner.summary.scenarios[0]

    def _merge_machine(self, worker: MachineInfo) -> None:
        """Take the workers' environment (interpreter, numpy, BLAS) from the first point that
        reports it, numba's version and threading layer from any point that has them, and the
        BLAS from the dense kernel's points (``BlasInfo.source``)."""
        machine = self.summary.machine
        if machine.numpy_version is None:
            self.summary.machine = machine = replace(worker)
        if (worker.blas.source or "").startswith("the dense kernel"):
            machine.blas = worker.blas
        machine.numba_version = machine.numba_version or worker.numba_version
        machine.numba_threading_layer = (
            machine.numba_threading_layer or worker.numba_threading_layer
        )

    def _keep(self, result: ScenarioResult) -> None:
        """Show a scenario in ``scenarios`` at its latest point: sizes go up and a failed
        point ends the scenario, so that is its largest ok point, or the failed point (with
        its status and error: a scenario that failed never shows as ok)."""
        scenarios = self.summary.scenarios
        at = next((i for i, s in enumerate(scenarios) if s.name == result.name), None)
        if at is None:
            scenarios.append(result)
            scenarios.sort(key=lambda s: (s.rung, s.name))
        else:
            scenarios[at] = result
        self._derive()

    def _stop(self, name: str, reason: str, detail: str, log: IO[str]) -> ScenarioStopped:
        self.summary.sweep["stopped"][name] = reason  # type: ignore[index]
        self._save()
        log_event(log, {"event": "stopped", "name": name, "reason": reason, "detail": detail})
        return ScenarioStopped(name, reason, detail)

    def _save(self) -> None:
        self.summary.save(self.run_dir / "summary.json")
