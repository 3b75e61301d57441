"""Batch sweeps of rectangular products: C (m×n) = A (m×k)·B (k×n), B fixed, m from 1 up.

The measurement behind ``overhead-tui shapes`` (issue 16): when does a matrix product leave
the memory roof?  B is the "weights" matrix, larger than the last-level cache
(:func:`default_weights_order`); m is the batch, from 1 (a matrix-vector product) up to n.

Each (scenario, m) point is one ordinary :class:`~overhead_tui.engine.runner.Runner` run of
that one scenario with ``Settings(size=n, m=m, k=k)``: its own worker, timed and validated,
its own folder ``points/<scenario>-m<m>/`` in the sweep's run directory.  A scenario without
``SHAPES = True`` is skipped by the runner with the reason, which ends its sweep.

Like ``engine.sweep``: the probes are loaded first (cache, or measured now, not charged to the
budget) and :func:`overhead_tui.machine.limits.apply_limits` gives the machine's measured peaks and
bandwidth; the budget is split fairly (:func:`~overhead_tui.engine.budget.fair_share_s`);
before each batch after the first the point's cost is predicted from the last one (time per
call grows at most linearly in m: exact once compute-bound, an over-estimate while B's
traffic dominates; plus the last point's overhead and the validation's reference products),
and a scenario stops with reason ``budget`` when it would not fit.  A failed point ends the
scenario.  The summary's ``shapes`` (:class:`~overhead_tui.analysis.shapes.ShapesRecord`) is
recomputed and saved after every point.  No Textual here.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import overhead_tui
from overhead_tui.analysis.shapes import Roofs, ShapePoint, ShapesRecord
from overhead_tui.engine.budget import fair_share_s, point_overhead_s, timed_calls
from overhead_tui.engine.events import ProbeStarted, ScenarioProgress
from overhead_tui.engine.probe_runs import load_run_probes
from overhead_tui.engine.results import compute_vs_dense
from overhead_tui.engine.run_log import log_event
from overhead_tui.engine.runner import Runner
from overhead_tui.engine.spawn import Cancel
from overhead_tui.engine.sweep import ScenarioStopped
from overhead_tui.machine.caches import FALLBACK_LLC_BYTES
from overhead_tui.machine.cpu import read_cpu_model
from overhead_tui.machine.host import describe_machine
from overhead_tui.machine.limits import apply_limits, roofline_bandwidth
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import MachineInfo, RunSummary, ScenarioResult, Settings
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE

DEFAULT_SCENARIOS: tuple[str, ...] = ("numpy_matmul", "numpy_matmul_1thread", "numba_ikj")
"""The dense kernel, the 1-thread BLAS and a compiled loop without cache blocking."""
DEFAULT_BUDGET_S = 90.0
"""Total time budget of a shapes sweep (s), split among its scenarios."""
SHAPES_REPEATS = 5
"""Timed samples per point."""
SHAPES_MIN_SAMPLE_S = 0.02
"""Shortest timed sample of a point (s)."""
CACHE_FACTOR = 2
"""B must hold at least this many times the last-level cache (bytes), so it streams from DRAM."""
ORDER_STEP = 512
"""The default k = n is a multiple of this."""
FAILED = ("invalid", "impossible", "error", "timeout", "crashed", "skipped")
"""Point statuses that end a scenario's sweep."""


# -- B's size from the caches ---------------------------------------------------------------


def default_weights_order(caches: dict[str, int], itemsize: int) -> tuple[int, str]:
    """The default k = n: the smallest multiple of :data:`ORDER_STEP` whose B (k × n) holds at
    least :data:`CACHE_FACTOR` × the last-level cache, and a sentence saying so."""
    levels = {name: size for name, size in caches.items() if not name.endswith("i")}
    if levels:
        name = max(levels, key=lambda key: (int(key[1]), levels[key]))
        llc, source = levels[name], f"{name} {levels[name] / 2**20:g} MiB (sysfs)"
    else:
        llc, source = FALLBACK_LLC_BYTES, "no cache sizes reported: assumed 32 MiB"
    order = ORDER_STEP
    while itemsize * order * order < CACHE_FACTOR * llc:
        order += ORDER_STEP
    weights = itemsize * order * order / 2**20
    return order, (
        f"k = n = {order}: B is {weights:.0f} MiB, at least {CACHE_FACTOR}× the last-level "
        f"cache ({source}), so it streams from memory"
    )


def default_batches(n: int) -> list[int]:
    """m = 1, 2, 4, … up to n, and n itself."""
    batches, m = [], 1
    while m < n:
        batches.append(m)
        m *= 2
    return [*batches, n]


# -- the budget -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchCost:
    """A finished point: batch ``m``, median call (s), wall time beyond its timed calls (s)."""

    m: int
    median_s: float
    overhead_s: float


VALIDATION_PRODUCTS = 4
"""Reference products a worker computes to validate (2 per check, first and last call)."""


def predict_batch_s(last: BatchCost, next_m: int, repeats: int, min_sample_s: float) -> float:
    """Predicted wall time (s) of the point at ``next_m``: the call time scaled linearly in m,
    times the calls the samples need, plus the last overhead and the validation products
    (each costed as one call: an over-estimate for BLAS, the order for slower rungs)."""
    call_s = last.median_s * next_m / last.m
    calls = timed_calls(call_s, repeats, min_sample_s) + VALIDATION_PRODUCTS
    return calls * call_s + last.overhead_s


# -- events ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShapesStarted:
    """The sweep began (no points yet)."""

    summary: RunSummary


@dataclass(frozen=True)
class BatchStarted:
    """A worker starts for ``scenario`` at batch ``m``; ``predicted_s`` (None for the first
    batch) and ``remaining_s`` in s; ``index``/``total`` count the scenarios from 0."""

    scenario: str
    m: int
    predicted_s: float | None
    remaining_s: float
    index: int
    total: int


@dataclass(frozen=True)
class BatchFinished:
    """A point's record and its worker's full result."""

    point: ShapePoint
    result: ScenarioResult


@dataclass(frozen=True)
class ShapesFinished:
    """The sweep ended (``cancelled`` after Ctrl-C or :meth:`ShapesSweep.cancel`)."""

    summary: RunSummary
    cancelled: bool = False


ShapesEvent = (
    ShapesStarted
    | ProbeStarted
    | BatchStarted
    | ScenarioProgress
    | BatchFinished
    | ScenarioStopped
    | ShapesFinished
)


def scenario_roofs(spec: ScenarioSpec, machine: MachineInfo, dtype: str) -> Roofs:
    """The roofs a scenario is judged against: all cores' measured peak and the best STREAM
    bandwidth for a rung with the ``parallel`` layer, one core's for the others."""
    peaks = (machine.peak_gflops or {}).get(dtype) or {}
    bandwidth = machine.bandwidth_gbs or {}
    if "parallel" in spec.layers:
        return Roofs("all cores", peaks.get("measured"), roofline_bandwidth(bandwidth))
    return Roofs("one core", peaks.get("one_core"), bandwidth.get("one_core"))


class ShapesSweep:
    """Runs a batch sweep: every scenario at every m (smallest first) with B fixed (k × n).

    Args:
        specs: scenarios, swept in this order.
        k, n: B's shape (A is m × k, C is m × n).
        batches: the m to run (ascending).
        budget_s: total budget (s), split fairly among the scenarios.
        settings: dtype, repeats, min_sample_s, seed, timeout_s, python, probes.
        run_dir: the sweep's run directory.
        size_reason: why B has this size (shown and stored).
        clock: monotonic clock (s); injectable for tests.
    """

    def __init__(
        self,
        specs: Sequence[ScenarioSpec],
        k: int,
        n: int,
        batches: Sequence[int],
        budget_s: float,
        settings: Settings,
        run_dir: Path,
        size_reason: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.specs = list(specs)
        self.k, self.n = k, n
        self.batches = sorted(set(batches))
        self.budget_s = budget_s
        self.settings = replace(settings, size=n, k=k, m=None, scenarios=self.names)
        self.run_dir = Path(run_dir)
        self.clock = clock
        self._cancel = threading.Event()
        self._commands = Cancel()
        self._lock = threading.Lock()
        self._runner: Runner | None = None
        self.cpu = read_cpu_model()
        self.record = ShapesRecord(
            k=k,
            n=n,
            dtype=settings.dtype,
            batches=list(self.batches),
            budget_s=budget_s,
            size_reason=size_reason,
        )
        self.summary = RunSummary(
            machine=describe_machine(),
            settings=self.settings,
            created=datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
            tool={"name": "overhead-tui", "version": overhead_tui.__version__},
            run_dir=str(self.run_dir),
            shapes=self.record.to_json(),
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
        """Stop: the running worker is killed, no further point starts."""
        self._cancel.set()
        self._commands.set()
        with self._lock:
            if self._runner is not None:
                self._runner.cancel()

    def events(self) -> Iterator[ShapesEvent]:
        """Run the sweep and yield its events; ``summary.wall_s`` includes the probes.

        Raises:
            OSError: the run directory cannot be written.
        """
        started = self.clock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / "events.jsonl", "a", encoding="utf-8") as log:
            log_event(
                log,
                {
                    "event": "shapes_started",
                    "k": self.k,
                    "n": self.n,
                    "batches": self.batches,
                    "budget_s": self.budget_s,
                },
            )
            self._save()
            yield ShapesStarted(self.summary)
            try:
                probes = yield from load_run_probes(self.settings, self._commands, log)
                if probes is not None:
                    self.summary.probes = probes
                self._derive()
                budget_started = self.clock()
                for index, spec in enumerate(self.specs):
                    if self.cancelled:
                        yield self._stop(spec.name, "cancelled", "not run: stopped", log)
                        continue
                    share = fair_share_s(
                        self.budget_s, self.clock() - budget_started, len(self.specs) - index
                    )
                    yield from self._sweep_one(spec, index, share, log)
            finally:
                self.summary.finished = not self.cancelled
                self.summary.wall_s = self.clock() - started
                self._derive()
                log_event(log, {"event": "shapes_finished", "cancelled": self.cancelled})
        yield ShapesFinished(self.summary, cancelled=self.cancelled)

    def _derive(self) -> None:
        """The machine's limits, each scenario's roofs, every point on the roofline, the
        crossings; then save."""
        compute_vs_dense(self.summary)
        apply_limits(self.summary, self.cpu)
        machine = self.summary.machine
        self.record.roofs = {
            s.name: scenario_roofs(s, machine, self.settings.dtype) for s in self.specs
        }
        self.record.recompute()
        self.summary.shapes = self.record.to_json()
        self._save()

    def _sweep_one(
        self, spec: ScenarioSpec, index: int, share_s: float, log: IO[str]
    ) -> Iterator[ShapesEvent]:
        began = self.clock()
        last: BatchCost | None = None
        for m in self.batches:
            remaining = share_s - (self.clock() - began)
            predicted = None
            if last is not None:
                predicted = predict_batch_s(
                    last, m, self.settings.repeats, self.settings.min_sample_s
                )
                if predicted > remaining:
                    why = (
                        f"m = {m} would take about {predicted:.1f} s, "
                        f"{max(remaining, 0):.1f} s of its share left"
                    )
                    yield self._stop(spec.name, "budget", why, log)
                    return
            log_event(log, {"event": "point_started", "name": spec.name, "m": m})
            yield BatchStarted(spec.name, m, predicted, remaining, index, len(self.specs))
            result = yield from self._run_point(spec, m)
            if self.cancelled and result.status != "ok":
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return
            point = ShapePoint(
                scenario=spec.name,
                m=m,
                status=result.status,
                median_s=result.median_s if result.has_speed else None,
                gflops=result.gflops if result.has_speed else None,
                intensity=0.0,  # filled by recompute
                attainable_gflops=None,
                bound=None,
                error=result.error,
                wall_s=result.wall_s,
                warnings=list(result.warnings) if result.has_speed else [],
            )
            self.record.points.append(point)
            self._keep(result)
            log_event(log, {"event": "point", "name": spec.name, "m": m, "status": point.status})
            yield BatchFinished(point, result)
            if result.status != "ok" or result.median_s is None:
                yield self._stop(spec.name, result.status, result.error or result.status, log)
                return
            last = BatchCost(m, result.median_s, point_overhead_s(result))
            if self.cancelled:
                yield self._stop(spec.name, "cancelled", "stopped by the user", log)
                return

    def _run_point(self, spec: ScenarioSpec, m: int) -> Iterator[ShapesEvent]:
        """Run one point through a Runner; returns (via StopIteration) its result."""
        settings = replace(
            self.settings, m=m, scenarios=[spec.name], probes=False, refresh_probes=False
        )
        runner = Runner([spec], settings, self.run_dir / "points" / f"{spec.name}-m{m}")
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
        """The workers' interpreter, numpy and BLAS facts (as ``engine.sweep`` does)."""
        machine = self.summary.machine
        if machine.numpy_version is None:  # the limits are re-derived right after
            self.summary.machine = machine = replace(worker)
        if (worker.blas.source or "").startswith("the dense kernel"):
            machine.blas = worker.blas
        machine.numba_version = machine.numba_version or worker.numba_version

    def _keep(self, result: ScenarioResult) -> None:
        """Show each scenario in ``scenarios`` at its latest point, then recompute."""
        scenarios = self.summary.scenarios
        at = next((i for i, s in enumerate(scenarios) if s.name == result.name), None)
        if at is None:
            scenarios.append(result)
        else:
            scenarios[at] = result
        self._derive()

    def _stop(self, name: str, reason: str, detail: str, log: IO[str]) -> ScenarioStopped:
        self.record.stopped[name] = reason
        self.summary.shapes = self.record.to_json()
        self._save()
        log_event(log, {"event": "stopped", "name": name, "reason": reason, "detail": detail})
        return ScenarioStopped(name, reason, detail)

    def _save(self) -> None:
        self.summary.save(self.run_dir / "summary.json")


def itemsize_of(dtype: str) -> int:
    """Bytes per element of ``dtype``."""
    return DTYPE_ITEMSIZE[dtype]


def shapes_record(summary: RunSummary) -> ShapesRecord | None:
    """The typed view of ``summary.shapes``, or None when the summary has none."""
    return ShapesRecord.from_json(summary.shapes) if summary.shapes else None
