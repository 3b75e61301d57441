"""The runner: it executes each rung's plan (``engine.plan.rung_plan``: its worker tasks),
yields events to the views, and folds the workers' messages into the rung's result
(``engine.results.rung_result``); nothing lost.

A rung carrying ``interpreter_dispatch`` runs in ``plan.EVAL_LOOP_PROCESSES`` workers one
after the other when the probes run, its samples shared among them and pooled
(:func:`~overhead_tui.engine.plan.worker_repeats`); the first alone counts events.

Each scenario runs in ``python -m overhead_tui.worker`` started with fork+exec in a new
session (its own process group), so a hang is ended by killing the whole group, a crash kills
only that worker, and a terminal Ctrl-C reaches only the parent, which then stops the worker.
Every worker message is appended to the run's ``log.jsonl`` as it arrives, and ``summary.json``
is rewritten atomically after every scenario.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from overhead_tui.analysis.derive import derive
from overhead_tui.engine.events import (
    Event,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
    snapshot,
)
from overhead_tui.engine.observer import TimedWindow
from overhead_tui.engine.plan import (
    planned_summary,
    run_order,
    rung_plan,
)
from overhead_tui.engine.prebuild import build_outcome, builds, prebuild
from overhead_tui.engine.probe_runs import load_run_probes, probes_to_measure
from overhead_tui.engine.results import (
    WorkerEnding,
    merge_environment,
    rung_result,
)
from overhead_tui.engine.run_dir import LOG_FILE, LOGS_DIR, stderr_log
from overhead_tui.engine.run_log import (
    WORKER_END_LINES,
    append_outcome,
    cap_log,
    log_line,
    log_message,
    outcome_line,
)
from overhead_tui.engine.spawn import (
    Cancel,
    Child,
    RunControl,
    same_interpreter,
    worker_command,
    worker_env,
)
from overhead_tui.machine.cpu import read_cpu_model
from overhead_tui.machine.host import (
    CpuTimes,
    other_cpu_fraction,
    read_cpu_times,
    steal_fraction,
)
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.measured import BuildInfo
from overhead_tui.summary.records import SUMMARY_FILE, ScenarioResult, Settings
from overhead_tui.worker.cpu_time import own_cpu_s
from overhead_tui.worker.protocol import (
    Build,
    Compiled,
    Done,
    Environment,
    Error,
    Message,
    Sample,
    TimingEnded,
    TimingStarted,
    Validated,
    WorkerTask,
)

EXIT_GRACE_S = 5.0
"""Seconds a worker may take to exit after its last event (or after closing its channel)
before its process group is killed."""
STDERR_TAIL_BYTES = 4096
"""How much of a worker's stderr log is kept for a crash message (bytes)."""


@dataclass(frozen=True)
class _Exit:
    """How a worker's process ended (after its last message)."""

    returncode: int | None
    timed_out: bool
    stderr_tail: str


class Runner(RunControl):
    """Runs scenarios one after the other, each in its own worker process.

    Args:
        specs: scenarios to run, in order.
        settings: size, dtype, repeats, seed, timeout, interpreter.
        run_dir: directory for ``log.jsonl``, ``summary.json`` and worker logs.
        clock: wall clock for elapsed times (s); injectable for tests.
        observer: names this process in warnings when it used the CPU while a rung was timed
            ("the app" from the app; the CLI's default "overhead-tui").

    Scenarios run in :func:`run_order`: the dense kernel first, so every later result gets its
    × dense the moment it lands; ``summary.scenarios`` keeps the given order.

    ``events()`` is a generator and may be consumed from any one thread; ``cancel()`` may be
    called from any other thread and stops the current worker within about 0.1 s.  A sweep
    hands every point's runner its own ``cancellation``.
    """

    def __init__(
        self,
        specs: list[ScenarioSpec],
        settings: Settings,
        run_dir: Path,
        clock: Callable[[], float] = time.monotonic,
        observer: str = "overhead-tui",
        cancellation: Cancel | None = None,
    ) -> None:
        self.cancellation = cancellation or Cancel()
        """Stops this run's workers and probes (``engine.spawn.Cancel``)."""
        self.specs = specs
        self.observer = observer
        self.settings = settings
        self.run_dir = Path(run_dir)
        self.clock = clock
        self._child: Child | None = None
        self.summary = planned_summary(specs, settings, self.run_dir)
        self._environment_seen = False
        self._built: dict[str, BuildInfo] = {}
        """The modules this run's build phase compiled (not found cached), by rung."""
        self.cpu = read_cpu_model()

    def events(self) -> Iterator[Event]:
        """Run every scenario and yield events as they happen (see ``engine.events``)."""
        started = self.clock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / LOGS_DIR).mkdir(exist_ok=True)
        with open(self.run_dir / LOG_FILE, "a", encoding="utf-8") as log:
            log_line(log, "run_started", created=self.summary.created)
            self.summary.save(self.run_dir / SUMMARY_FILE)
            yield RunStarted(snapshot(self.summary))
            yield from self._prebuild(log)
            yield from self._load_probes(log)
            total = len(self.specs)
            try:
                pairs = list(zip(self.specs, self.summary.scenarios, strict=True))
                for index, position in enumerate(run_order(self.specs)):
                    spec, planned = pairs[position]
                    if self.cancelled:
                        planned.error = "cancelled before it ran"
                        continue
                    yield ScenarioStarted(spec.name, index, total)
                    result = yield from self._run_one(spec, planned, log)
                    self.summary.scenarios[position] = result
                    self._derive()
                    self.summary.save(self.run_dir / SUMMARY_FILE)
                    copied = snapshot(self.summary)
                    yield ScenarioFinished(copied.scenarios[position], index, total, copied)
            finally:
                self.summary.finished = not self.cancelled
                self.summary.wall_s = self.clock() - started
                self._derive()
                self.summary.save(self.run_dir / SUMMARY_FILE)
                log_line(log, "run_finished", cancelled=self.cancelled)
        yield RunFinished(snapshot(self.summary), cancelled=self.cancelled)

    def _derive(self) -> None:
        """Recompute what depends on several results: × dense, breakdowns, waterfall (after
        rejecting speeds the hardware cannot reach, so none of them uses one)."""
        derive(self.summary, self.cpu)

    def _prebuild(self, log: IO[str]) -> Iterator[Event]:
        """Build the modules the rungs and the probes to measure compile, several at once,
        before anything is timed (``engine.prebuild``): only where there are two or more (one
        builds as fast in the worker that times it, before its timing)."""
        wanted = builds(self.specs, self.settings, probes_to_measure(self.settings))
        if len(wanted) < 2 or self.cancelled:
            return
        began = self.clock()
        python = self.settings.python or sys.executable
        results = yield from prebuild(
            wanted, python, self.cancellation, timeout_s=self.settings.timeout_s
        )
        for name, result in results.items():
            if (found := result.message(Build)) is not None and not found.info.cached:
                self._built[name] = found.info
        log_line(
            log,
            "prebuilt",
            modules={name: build_outcome(r) for name, r in results.items()},
            wall_s=round(self.clock() - began, 3),
        )

    def _load_probes(self, log: IO[str]) -> Iterator[Event]:
        """Probe unit costs into ``summary.probes`` (see :func:`load_run_probes`)."""
        probes = yield from load_run_probes(self.settings, self.cancellation, log)
        if probes is not None:
            self.summary.probes = probes

    def _run_one(
        self, spec: ScenarioSpec, planned: ScenarioResult, log: IO[str]
    ) -> Generator[ScenarioProgress, None, ScenarioResult]:
        """Execute ``spec``'s plan (:func:`rung_plan`) and return its result, folded from its
        workers' messages (:func:`rung_result`); ``planned`` stays as it was."""
        plan = rung_plan(spec, self.settings, planned.n)
        if plan.skip is not None:
            log_line(log, "skipped", name=spec.name, reason=plan.skip)
            return replace(planned, error=plan.skip)
        before = read_cpu_times()
        observer_before = own_cpu_s()
        began = self.clock()
        window = TimedWindow()
        workers: list[WorkerEnding] = []
        for index, task in enumerate(plan.workers):
            if index > 0 and (self.cancelled or not _finished_well(workers)):
                break
            ending = yield from self._run_worker(spec, task, workers, log, window)
            if ending is not None:
                workers.append(ending)
        messages = [m for w in workers for m in w.messages]
        after = read_cpu_times()
        measured = replace(
            planned,
            wall_s=self.clock() - began,
            steal_fraction=steal_fraction(before, after),
            other_cpu_fraction=self._other_cpu(messages, before, after, observer_before),
            observer=self.observer,
            observer_cpu_s=window.observer_cpu_s,
            observer_fraction=window.observer_fraction,
            observer_switches=window.observer_switches,
        )
        settings = self.settings
        result = rung_result(
            measured,
            workers,
            len(plan.workers),
            settings.repeats,
            settings.timeout_s,
            self.cancelled,
            prebuilt_s=built.build_s if (built := self._built.get(spec.name)) else None,
        )
        if not workers:  # cancelled before its worker could start
            log_line(log, "result", name=spec.name, status=result.status)
            return result
        self._environment_seen = merge_environment(
            self.summary.machine, messages, self._environment_seen, spec.dense_kernel, spec.name
        )
        last = workers[-1]
        stopped = (
            self.cancelled and result.status != "ok"
        )  # rung_result's "cancelled while running"
        log_path = stderr_log(self.run_dir, spec.name)
        append_outcome(
            log_path, outcome_line(result.status, last.returncode, last.timed_out, stopped)
        )
        log_line(
            log,
            "result",
            name=spec.name,
            status=result.status,
            error=result.error,
            median_s=result.median_s,
        )
        return result

    @staticmethod
    def _other_cpu(
        messages: list[Message],
        before: CpuTimes | None,
        after: CpuTimes | None,
        observer_before: float,
    ) -> float | None:
        """The share of all CPUs other processes used while the rung ran: everything but its
        workers' CPU (their ``done``) and this process's own (judged on its own, observer_*)."""
        worker_cpu = [m.cpu_s for m in messages if isinstance(m, Done)]
        if not worker_cpu or None in worker_cpu:
            return None
        cpu_s = sum(x for x in worker_cpu if x is not None) + own_cpu_s() - observer_before
        return other_cpu_fraction(before, after, cpu_s)

    def _run_worker(
        self,
        spec: ScenarioSpec,
        task: WorkerTask,
        earlier: list[WorkerEnding],
        log: IO[str],
        window: TimedWindow,
    ) -> Generator[ScenarioProgress, None, WorkerEnding | None]:
        """Run one of ``spec``'s workers (after its ``earlier`` ones), logging its messages
        and naming the phases they start; its ending (None when cancelled before it
        started)."""
        first = not earlier
        done = sum(isinstance(m, Sample) for w in earlier for m in w.messages)
        messages: list[Message] = []
        for item in self._spawn(spec, task, append=not first):
            if isinstance(item, _Exit):
                window.see("timing_ended", self.clock())  # a worker that died in its window
                return WorkerEnding(
                    tuple(messages), item.returncode, item.timed_out, item.stderr_tail
                )
            window.see(item.kind, self.clock())
            log_message(log, item, spec.name)
            messages.append(item)
            done += isinstance(item, Sample)
            wrong = self._wrong_interpreter(item)
            if wrong is not None:  # the requested interpreter is not the one running
                error = Error(cause="interpreter", message=wrong)
                log_message(log, error, spec.name)
                messages.append(error)
                self._stop_worker()
            progress = self._progress(spec.name, item, window.open, done, first)
            if progress is not None:
                yield progress
        return None

    def _wrong_interpreter(self, message: Message) -> str | None:
        """Why a worker's ``environment`` message shows another interpreter than requested, or
        None (see :func:`~overhead_tui.engine.spawn.same_interpreter`)."""
        if not isinstance(message, Environment):
            return None
        requested = self.settings.python or sys.executable
        reported = message.python.executable if message.python else ""
        if same_interpreter(requested, reported):
            return None
        return (
            f"the worker ran on {reported or 'an unknown interpreter'}, not on the requested "
            f"{requested}; its numbers would describe another interpreter, so it was stopped"
        )

    def _stop_worker(self) -> None:
        """Kill the current worker's process group (its outcome is still collected)."""
        if self._child is not None:
            self._child.stop()

    def _progress(
        self, name: str, message: Message, timed_window: bool, done: int, first: bool
    ) -> ScenarioProgress | None:
        """The phase a worker message starts (each phase is named while it runs); ``done``
        samples so far over all of the rung's workers, ``first``: its first worker."""
        repeats = self.settings.repeats
        match message:
            case Environment() if not first:  # a further worker: start-up, then more samples
                return ScenarioProgress(name, "running", done, repeats)
            case Environment():  # the first call (JIT compilation included) follows
                return ScenarioProgress(name, "compiling", 0, repeats)
            case Compiled() if first:  # the first call's result is being validated
                return ScenarioProgress(name, "validating", 0, repeats)
            case Validated(phase="first", ok=True) if first:
                # calibration and warm-up follow; the samples start right after them, so
                # views paint "running" now, while the worker calibrates, not as the samples
                # begin
                return ScenarioProgress(name, "running", 0, repeats)
            case TimingStarted() | Sample():
                return ScenarioProgress(name, "running", done, repeats, timed_window)
            case TimingEnded():  # the last call's result is being validated
                return ScenarioProgress(name, "validating", done, repeats)
            case Validated(phase="last", ok=True) if first:
                return ScenarioProgress(name, "counting", done, repeats)
        return None

    def _spawn(
        self, spec: ScenarioSpec, worker: WorkerTask, append: bool = False
    ) -> Iterator[Message | _Exit]:
        python = self.settings.python or sys.executable
        stderr_path = stderr_log(self.run_dir, spec.name)
        with open(stderr_path, "ab" if append else "wb") as stderr_file:
            child = Child(
                worker_command(python, worker),
                worker_env(),
                stderr=stderr_file,
                cancel=self.cancellation,
                clock=self.clock,
            )
            with child:
                if not child.start():
                    return  # cancelled before it started
                self._child = child
                try:
                    # blocks until the worker writes or the deadline passes (no polling:
                    # cancel() kills the worker's group, which closes the pipe)
                    yield from child.messages(self.settings.timeout_s, until_final=True)
                    ended = child.finish(EXIT_GRACE_S)
                finally:
                    self._child = None
        cap_log(stderr_path)  # a worker that flooded stderr leaves its first and last MiB
        yield _Exit(ended.returncode, ended.timed_out, self._stderr_tail(spec))

    def _stderr_tail(self, spec: ScenarioSpec) -> str:
        path = stderr_log(self.run_dir, spec.name)
        try:
            with open(path, "rb") as fh:
                fh.seek(max(0, path.stat().st_size - STDERR_TAIL_BYTES))
                lines = fh.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(x for x in lines if not x.startswith(WORKER_END_LINES))


def _finished_well(workers: list[WorkerEnding]) -> bool:
    """True when a rung's last worker ended with its ``done`` and no worker's result was
    wrong, so a further worker may add samples."""
    last = workers[-1] if workers else None
    if last is None or last.timed_out:
        return False
    if any(isinstance(m, Validated) and not m.ok for w in workers for m in w.messages):
        return False
    return any(isinstance(m, Done) for m in last.messages) and not any(
        isinstance(m, Error) for m in last.messages
    )
