"""The driver shared by the budgeted sweeps (``sweeps.sizes`` over n, ``sweeps.shapes`` over
the batch m): probes first (not charged to the budget), then every scenario at every point,
smallest first, each point one :class:`~overhead_tui.engine.runner.Runner` run in its own
worker and folder, within a budget split fairly among the scenarios
(:func:`~overhead_tui.sweeps.budget.fair_share_s`).  A scenario stops when its next point is
refused (too large, or predicted not to fit what is left of its share), at its first failed
point, or when cancelled.  The summary is saved after every point.

What is swept is one record, :class:`SweepAxis`: the coordinate (n or m) and the setting it
sets, how the next point's cost is predicted, how a point is recorded and logged, and what the
summary keeps.  ``sweeps.sizes.SizeSweep`` and ``sweeps.shapes.ShapesSweep`` only build theirs.
No Textual here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from overhead_tui.analysis.derive import derive
from overhead_tui.engine.events import (
    ProbeStarted,
    RunFinished,
    RunStarted,
    ScenarioProgress,
    result_copy,
    snapshot,
)
from overhead_tui.engine.probe_runs import load_run_probes
from overhead_tui.engine.run_dir import LOG_FILE, POINTS_DIR
from overhead_tui.engine.run_log import log_line
from overhead_tui.engine.runner import Runner
from overhead_tui.engine.spawn import Cancel, RunControl
from overhead_tui.machine.cpu import read_cpu_model
from overhead_tui.machine.host import describe_machine
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import (
    SUMMARY_FILE,
    MachineInfo,
    RunSummary,
    ScenarioResult,
    Settings,
    created_now,
    tool_stamp,
)
from overhead_tui.summary.sweep import BudgetedPoint, BudgetedRecord
from overhead_tui.sweeps.budget import (
    PointCost,
    budget_allows,
    fair_share_s,
    point_overhead_s,
)

NOT_RUN = "not run: stopped by the user"
"""The detail of a scenario not started because the sweep was cancelled."""

RecordDerivation = Callable[[BudgetedRecord, RunSummary, list[ScenarioSpec]], BudgetedRecord]
"""The sweep's record again from the summary (its machine's limits) and the specs."""


@dataclass(frozen=True)
class SweepAxis:
    """What a budgeted sweep steps along, as data.

    Attributes:
        name: the coordinate: ``n`` (the matrix order) or ``m`` (the batch).
        setting: the :class:`Settings` field a point sets to its x (``size`` or ``m``).
        kind: names the log's ``<kind>_started`` and ``<kind>_finished`` lines, and the
            summary's field that holds :attr:`record` (``sweep`` or ``shapes``).
        record: the record the summary starts with (points and stop reasons are appended
            as the sweep runs; ``derive_record`` may replace it).
        started: the ``<kind>_started`` line's fields (the points, the budget, B's shape).
        predict_s: the wall time (s) of the point at x from the last point's cost, the
            repeats and the shortest sample (s): ``budget.predict_point_s`` (n³) or the
            batch's (linear in m).
        point: a finished point's record from its result and x.
        log_fields: a point record's fields in the log's ``point`` line.
        folder_prefix: before x in a point's folder name (``python_naive-m64``).
        max_size_ends: x above a scenario's ``MAX_SIZE`` ends its sweep (x is n).
        sort_scenarios: ``summary.scenarios`` in rung order (else in the order they ran).
        derive_record: the record again from the summary and the specs once the machine's
            limits are derived (the batch sweep's roofs and crossings), or None.
    """

    name: str
    setting: str
    kind: str
    record: BudgetedRecord
    started: dict[str, object]
    predict_s: Callable[[PointCost, int, int, float], float]
    point: Callable[[ScenarioResult, int], BudgetedPoint]
    log_fields: Callable[[BudgetedPoint], dict[str, object]]
    folder_prefix: str = ""
    max_size_ends: bool = False
    sort_scenarios: bool = True
    derive_record: (
        Callable[[BudgetedRecord, RunSummary, list[ScenarioSpec]], BudgetedRecord] | None
    ) = None


@dataclass(frozen=True)
class PointStarting:
    """A worker is starting for ``scenario`` at point ``x`` of the sweep's ``axis`` (``n``,
    the matrix order, or ``m``, the batch).

    ``predicted_s`` is the predicted wall time (s; None for a scenario's first point);
    ``remaining_s`` what is left of the scenario's share (s); ``index``/``total`` count the
    scenarios (from 0).
    """

    scenario: str
    axis: str
    x: int
    predicted_s: float | None
    remaining_s: float
    index: int
    total: int

    @property
    def label(self) -> str:
        """The point in words: ``numba_ikj n=64``."""
        return f"{self.scenario} {self.axis}={self.x}"


@dataclass(frozen=True)
class PointPlan:
    """One point of a budgeted sweep as data, decided behind the budget check: the scenario,
    its coordinate ``x`` (n or m), the settings its one worker runs with and its folder under
    ``points/``.  :meth:`BudgetedSweep._run_point` executes it; nothing else decides it."""

    spec: ScenarioSpec
    x: int
    settings: Settings
    folder: str


@dataclass(frozen=True)
class PointMeasured:
    """A point's record as the summary keeps it and its worker's full result."""

    point: BudgetedPoint
    result: ScenarioResult


@dataclass(frozen=True)
class ScenarioStopped:
    """A scenario's sweep ended before its last point: ``reason`` is ``budget``,
    ``max_size``, ``cancelled`` or a failed point's status; ``detail`` says why in words."""

    scenario: str
    reason: str
    detail: str


BudgetedEvent = (
    RunStarted
    | ProbeStarted
    | PointStarting
    | ScenarioProgress
    | PointMeasured
    | ScenarioStopped
    | RunFinished
)
"""What a budgeted sweep's ``events()`` yields, in this order per scenario."""


class BudgetedSweep(RunControl):
    """Runs every scenario at every point (smallest first) within a budget.

    Args:
        specs: scenarios, swept one after the other in this order.
        points: the points (n or m; ascending once sorted).
        budget_s: total time budget (s), split fairly among the scenarios.
        settings: the settings of every point (each point sets its x: ``axis.setting``).
        axis: what is swept (:class:`SweepAxis`).
        run_dir: the sweep's run directory (``summary.json``, ``log.jsonl``, ``points/``).
        clock: monotonic clock (s); injectable for tests.

    ``events()`` is a generator consumed from one thread; ``cancel()`` may be called from any
    other thread (or a signal handler) and stops the running worker.
    """

    def __init__(
        self,
        specs: Sequence[ScenarioSpec],
        points: Sequence[int],
        budget_s: float,
        settings: Settings,
        run_dir: Path,
        axis: SweepAxis,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.cancellation = Cancel()
        """Stops the probes and every point's worker (each point's Runner shares it)."""
        self.specs = list(specs)
        self.points = sorted(set(points))
        self.budget_s = budget_s
        self.settings = settings
        self.run_dir = Path(run_dir)
        self.clock = clock
        self.cpu = read_cpu_model()
        self.summary = RunSummary(
            machine=describe_machine(),
            settings=settings,
            created=created_now(),
            tool=tool_stamp(),
            run_dir=str(self.run_dir),
        )
        self.axis = axis
        setattr(self.summary, axis.kind, axis.record)

    @property
    def record(self) -> BudgetedRecord:
        """The summary's record of the sweep (``summary.sweep`` or ``summary.shapes``)."""
        record: BudgetedRecord = getattr(self.summary, self.axis.kind)
        return record

    def _budget(
        self, last: PointCost | None, x: int, remaining_s: float, share_s: float
    ) -> tuple[float | None, str | None]:
        """(predicted wall time in s or None, why the point does not fit or None).  The first
        point always runs (nothing to predict from), so every scenario has one."""
        s = self.settings
        allowed, predicted = budget_allows(
            last, x, remaining_s, s.repeats, s.min_sample_s, self.axis.predict_s
        )
        if allowed:
            return predicted, None
        if predicted is None:
            return None, f"its share of the budget ({share_s:.1f} s) is spent"
        why = f"{self.axis.name} = {x} would take about {predicted:.1f} s, {remaining_s:.1f} s "
        return predicted, why + "of its share left"

    def _point_started(
        self,
        spec: ScenarioSpec,
        x: int,
        predicted_s: float | None,
        remaining_s: float,
        index: int,
        log: IO[str],
    ) -> PointStarting:
        """Write the log's ``point_started`` line of the point at ``x``; its event."""
        name = self.axis.name
        log_line(
            log,
            "point_started",
            name=spec.name,
            predicted_s=predicted_s,
            remaining_s=remaining_s,
            **{name: x},
        )
        return PointStarting(spec.name, name, x, predicted_s, remaining_s, index, len(self.specs))

    def plan_point(self, spec: ScenarioSpec, x: int) -> PointPlan:
        """The plan of ``spec``'s point at ``x``: its settings (the sweep's, at this n or m,
        without probes) and its folder's name under ``points/``."""
        point: dict[str, Any] = {self.axis.setting: x}  # n of a sweep, m of shapes
        settings = replace(
            self.settings, scenarios=[spec.name], probes=False, refresh_probes=False, **point
        )
        return PointPlan(spec, x, settings, f"{spec.name}-{self.axis.folder_prefix}{x}")

    def _derive(self) -> None:
        """Recompute what depends on several results: × dense and the machine's limits (peaks,
        bandwidth, clock; each rung's arithmetic intensity and % of peak), then the axis's own
        record (``derive_record``)."""
        derive(self.summary, self.cpu, breakdowns=False)
        if self.axis.derive_record is not None:
            again = self.axis.derive_record(self.record, self.summary, self.specs)
            setattr(self.summary, self.axis.kind, again)

    # -- the driver -------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The swept scenarios' names, in order."""
        return [s.name for s in self.specs]

    def events(self) -> Iterator[BudgetedEvent]:
        """Run the sweep and yield its events (``ProbeStarted`` while probes are measured,
        the workers' ``ScenarioProgress``).  ``summary.wall_s`` (s) includes the probes; the
        budget starts after them.

        Raises:
            OSError: the run directory cannot be written.
        """
        started = self.clock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / LOG_FILE, "a", encoding="utf-8") as log:
            log_line(log, f"{self.axis.kind}_started", **self.axis.started)
            self._save()
            yield RunStarted(snapshot(self.summary))
            try:
                probes = yield from load_run_probes(self.settings, self.cancellation, log)
                if probes is not None:  # the probes, as ``run`` loads them (not per point)
                    self.summary.probes = probes
                self._derive()
                self._save()
                budget_started = self.clock()  # probes are not charged to the budget
                for index, spec in enumerate(self.specs):
                    if self.cancelled:
                        yield self._stop(spec.name, "cancelled", NOT_RUN, log)
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
                log_line(log, f"{self.axis.kind}_finished", cancelled=self.cancelled)
        yield RunFinished(snapshot(self.summary), cancelled=self.cancelled)

    def _sweep_one(
        self, spec: ScenarioSpec, index: int, share_s: float, log: IO[str]
    ) -> Iterator[BudgetedEvent]:
        began = self.clock()
        last: PointCost | None = None
        for x in self.points:
            if self.axis.max_size_ends and x > spec.max_size:
                above = f"{self.axis.name} = {x} is above its maximum of {spec.max_size}"
                yield self._stop(spec.name, "max_size", above, log)
                return
            remaining = share_s - (self.clock() - began)
            predicted, why = self._budget(last, x, remaining, share_s)
            if why is not None:
                yield self._stop(spec.name, "budget", why, log)
                return
            yield self._point_started(spec, x, predicted, remaining, index, log)
            result = yield from self._run_point(self.plan_point(spec, x))
            if self.cancelled and result.status != "ok":
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return
            point = self.axis.point(result, x)
            self.record.points.append(point)
            self._keep(result)
            self._save()
            log_line(log, "point", **self.axis.log_fields(point))
            yield PointMeasured(point, result_copy(result))
            if result.status != "ok" or result.median_s is None:
                yield self._stop(spec.name, result.status, result.error or result.status, log)
                return
            last = PointCost(x, result.median_s, point_overhead_s(result))
            if self.cancelled:
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return

    def _run_point(self, plan: PointPlan) -> Generator[ScenarioProgress, None, ScenarioResult]:
        """Execute one point's plan through a Runner (one worker, the sweep's cancellation);
        returns (via StopIteration) its result."""
        runner = Runner(
            [plan.spec],
            plan.settings,
            self.run_dir / POINTS_DIR / plan.folder,
            cancellation=self.cancellation,
        )
        for event in runner.events():
            if isinstance(event, ScenarioProgress):
                yield event
        self._merge_machine(runner.summary.machine)
        return runner.summary.scenarios[0]

    def _merge_machine(self, worker: MachineInfo) -> None:
        """Take the workers' environment (interpreter, numpy, BLAS) from the first point that
        reports it, numba's version and threading layer from any point that has them, and the
        BLAS from the dense kernel's points (``BlasInfo.source``)."""
        machine = self.summary.machine
        if machine.numpy_version is None:  # the limits are re-derived right after
            self.summary.machine = machine = replace(worker)
        if (worker.blas.source or "").startswith("the dense kernel"):
            machine.blas = worker.blas
        machine.numba_version = machine.numba_version or worker.numba_version
        machine.numba_threading_layer = (
            machine.numba_threading_layer or worker.numba_threading_layer
        )

    def _keep(self, result: ScenarioResult) -> None:
        """Show a scenario in ``scenarios`` at its latest point: points go up and a failed
        point ends the scenario, so that is its largest ok point, or the failed point (with
        its status and error: a scenario that failed never shows as ok)."""
        scenarios = self.summary.scenarios
        at = next((i for i, s in enumerate(scenarios) if s.name == result.name), None)
        if at is None:
            scenarios.append(result)
            if self.axis.sort_scenarios:
                scenarios.sort(key=lambda s: (s.rung, s.name))
        else:
            scenarios[at] = result
        self._derive()

    def _stop(self, name: str, reason: str, detail: str, log: IO[str]) -> ScenarioStopped:
        self.record.stopped[name] = reason
        self._save()
        log_line(log, "stopped", name=name, reason=reason, detail=detail)
        return ScenarioStopped(name, reason, detail)

    def _save(self) -> None:
        self.summary.save(self.run_dir / SUMMARY_FILE)
