"""The runner: one worker subprocess per scenario, events in, results out, nothing lost.

Each scenario runs in ``python -m overhead_tui.engine.worker`` started with fork+exec in a new
session (its own process group), so a hang is ended by killing the whole group, a crash kills
only that worker, and a terminal Ctrl-C reaches only the parent, which then stops the worker.
Every worker event is appended to the run's ``events.jsonl`` as it arrives, and ``summary.json``
is rewritten atomically after every scenario.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import overhead_tui
from overhead_tui.attribution import attribute
from overhead_tui.cpu import read_cpu_model
from overhead_tui.discovery import ScenarioSpec
from overhead_tui.engine.events import (
    Event,
    ProbeStarted,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.engine.results import apply_event, compute_vs_dense, finish, new_result
from overhead_tui.engine.spawn import worker_command, worker_env
from overhead_tui.errors import UsageError
from overhead_tui.limits import apply_limits
from overhead_tui.machine import (
    describe_machine,
    other_cpu_fraction,
    read_cpu_times,
    steal_fraction,
)
from overhead_tui.model import BlasInfo, PythonInfo, RunSummary, ScenarioResult, Settings
from overhead_tui.probes import cache_key, discover_probes, measure_probe, read_cache, write_cache

EXIT_GRACE_S = 5.0
"""Seconds a worker may take to exit after its last event (or after closing its channel)
before its process group is killed."""
STDERR_TAIL_BYTES = 4096
"""How much of a worker's stderr log is kept for a crash message (bytes)."""


def size_for(spec: ScenarioSpec, settings: Settings) -> int:
    """The matrix order a scenario runs at: ``settings.size`` or the scenario's default."""
    return settings.size if settings.size is not None else spec.default_size


def default_runs_dir() -> Path:
    """Where run directories go by default: the user data dir (platformdirs) / runs."""
    import platformdirs

    return platformdirs.user_data_path("overhead-tui", appauthor=False) / "runs"


def new_run_dir(parent: Path | None = None) -> Path:
    """Create and return a fresh run directory ``YYYYmmdd-HHMMSS-PID`` under ``parent``."""
    parent = parent or default_runs_dir()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = parent / f"{stamp}-{os.getpid()}"
    suffix = 0
    while path.exists():
        suffix += 1
        path = parent / f"{stamp}-{os.getpid()}-{suffix}"
    path.mkdir(parents=True)
    return path


def planned_summary(
    specs: list[ScenarioSpec], settings: Settings, run_dir: Path | None = None
) -> RunSummary:
    """A summary listing ``specs`` as not yet run (what the app shows before a run starts)."""
    return RunSummary(
        machine=describe_machine(),
        settings=settings,
        created=datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        tool={"name": "overhead-tui", "version": overhead_tui.__version__},
        run_dir=str(run_dir) if run_dir is not None else None,
        scenarios=[new_result(s, size_for(s, settings), settings.dtype) for s in specs],
    )


@dataclass
class _WorkerOutcome:
    events: list[dict[str, Any]]
    returncode: int | None
    timed_out: bool
    stderr_tail: str


class Runner:
    """Runs scenarios one after the other, each in its own worker process.

    Args:
        specs: scenarios to run, in order.
        settings: size, dtype, repeats, seed, timeout, interpreter.
        run_dir: directory for ``events.jsonl``, ``summary.json`` and worker logs.
        clock: wall clock for elapsed times (s); injectable for tests.
        probes: returns probe results by name (``probes.load_probes``), given a progress
            callback; None runs without probes (no breakdowns).

    ``events()`` is a generator and may be consumed from any one thread; ``cancel()`` may be
    called from any other thread and stops the current worker within about 0.1 s.
    """

    def __init__(
        self,
        specs: list[ScenarioSpec],
        settings: Settings,
        run_dir: Path,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.specs = specs
        self.settings = settings
        self.run_dir = Path(run_dir)
        self.clock = clock
        self._cancel = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.summary = planned_summary(specs, settings, self.run_dir)
        self.cpu = read_cpu_model()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop the run: kill the current worker's process group; later scenarios are skipped."""
        self._cancel.set()
        with self._lock:
            if self._process is not None:
                _kill_group(self._process)

    def events(self) -> Iterator[Event]:
        """Run every scenario and yield events as they happen (see ``engine.events``)."""
        started = self.clock()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "logs").mkdir(exist_ok=True)
        with open(self.run_dir / "events.jsonl", "a", encoding="utf-8") as log:
            log_event(log, {"event": "run_started", "created": self.summary.created})
            self.summary.save(self.run_dir / "summary.json")
            yield RunStarted(self.summary)
            yield from self._load_probes(log)
            total = len(self.specs)
            try:
                for index, (spec, result) in enumerate(
                    zip(self.specs, self.summary.scenarios, strict=True)
                ):
                    if self.cancelled:
                        result.error = "cancelled before it ran"
                        continue
                    yield ScenarioStarted(spec.name, index, total)
                    yield from self._run_one(spec, result, log)
                    self._derive()
                    self.summary.save(self.run_dir / "summary.json")
                    yield ScenarioFinished(result, index, total)
            finally:
                self.summary.finished = not self.cancelled
                self.summary.wall_s = self.clock() - started
                self._derive()
                self.summary.save(self.run_dir / "summary.json")
                log_event(log, {"event": "run_finished", "cancelled": self.cancelled})
        yield RunFinished(self.summary, cancelled=self.cancelled)

    def _derive(self) -> None:
        """Recompute what depends on several results: × dense, breakdowns, waterfall."""
        compute_vs_dense(self.summary)
        if self.summary.probes:
            attribute(self.summary, self.summary.probes)
        apply_limits(self.summary, self.cpu)

    def _load_probes(self, log: IO[str]) -> Iterator[Event]:
        """Probe unit costs into ``summary.probes`` (see :func:`load_run_probes`)."""
        probes = yield from load_run_probes(self.settings, lambda: self.cancelled, log)
        if probes is not None:
            self.summary.probes = probes

    def _run_one(self, spec: ScenarioSpec, result: ScenarioResult, log: IO[str]) -> Iterator[Event]:
        if self.settings.dtype not in spec.dtypes:
            supported = ", ".join(spec.dtypes)
            result.error = f"does not support {self.settings.dtype} (supports {supported})"
            log_event(log, {"event": "skipped", "name": spec.name, "reason": result.error})
            return
        result.error = None
        before = read_cpu_times()
        began = self.clock()
        events: list[dict[str, Any]] = []
        outcome: _WorkerOutcome | None = None
        for item in self._spawn(spec, result.n):
            if isinstance(item, _WorkerOutcome):
                outcome = item
                break
            item["name"] = spec.name
            log_event(log, item)
            events.append(item)
            apply_event(result, item)
            progress = self._progress(spec.name, item)
            if progress is not None:
                yield progress
        assert outcome is not None
        result.wall_s = self.clock() - began
        after = read_cpu_times()
        result.steal_fraction = steal_fraction(before, after)
        done = next((e for e in events if e.get("event") == "done" and "cpu_s" in e), None)
        if done is not None:
            result.other_cpu_fraction = other_cpu_fraction(before, after, float(done["cpu_s"]))
        self._merge_environment(events)
        finish(
            result,
            events,
            outcome.returncode,
            outcome.timed_out,
            self.settings.timeout_s,
            outcome.stderr_tail,
        )
        if self.cancelled and result.status != "ok":
            result.status, result.error = "skipped", "cancelled while running"
        log_event(
            log,
            {
                "event": "result",
                "name": spec.name,
                "status": result.status,
                "error": result.error,
                "median_s": result.median_s,
            },
        )

    def _progress(self, name: str, event: dict[str, Any]) -> ScenarioProgress | None:
        kind = event.get("event")
        repeats = self.settings.repeats
        if kind == "environment":
            return ScenarioProgress(name, "compiling", 0, repeats)
        if kind == "calibrated":
            return ScenarioProgress(name, "running", 0, repeats)
        if kind == "sample":
            return ScenarioProgress(name, "running", int(event["index"]) + 1, repeats)
        if kind == "validated" and event.get("phase") == "first":
            return ScenarioProgress(name, "validating", 0, repeats)
        return None

    def _spawn(self, spec: ScenarioSpec, n: int) -> Iterator[dict[str, Any] | _WorkerOutcome]:
        worker_spec = {
            "name": spec.name,
            "path": str(spec.path),
            "n": n,
            "dtype": self.settings.dtype,
            "seed": self.settings.seed,
            "repeats": self.settings.repeats,
            "min_sample_s": self.settings.min_sample_s,
            "requires": list(spec.requires),
            "max_size": spec.max_size,
            "parent_pid": os.getpid(),
        }
        python = self.settings.python or sys.executable
        stderr_path = self.run_dir / "logs" / f"{spec.name}.stderr.txt"
        with open(stderr_path, "wb") as stderr_file, self._lock:
            if self.cancelled:
                return
            process = subprocess.Popen(
                worker_command(python, worker_spec),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr_file,
                env=worker_env(),
                start_new_session=True,
            )
            self._process = process
        try:
            yield from self._read(process, spec)
        finally:
            _kill_group(process)
            with self._lock:
                self._process = None

    def _read(
        self, process: subprocess.Popen[bytes], spec: ScenarioSpec
    ) -> Iterator[dict[str, Any] | _WorkerOutcome]:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        deadline = self.clock() + self.settings.timeout_s
        buffer = b""
        timed_out = False
        final = False
        events: list[dict[str, Any]] = []
        while not final:
            remaining = deadline - self.clock()
            if remaining <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([fd], [], [], min(remaining, 0.1))
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                event = _parse_line(line)
                if event is not None:
                    events.append(event)
                    yield event
                    # A child the kernel forked may hold the pipe open: the last event ends it.
                    final = final or event.get("event") in ("done", "error")
        returncode = None if timed_out else _wait(process, EXIT_GRACE_S)
        _kill_group(process)
        returncode = process.wait() if returncode is None else returncode
        yield _WorkerOutcome(events, returncode, timed_out, self._stderr_tail(spec))

    def _stderr_tail(self, spec: ScenarioSpec) -> str:
        path = self.run_dir / "logs" / f"{spec.name}.stderr.txt"
        try:
            with open(path, "rb") as fh:
                fh.seek(max(0, path.stat().st_size - STDERR_TAIL_BYTES))
                lines = fh.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(x for x in lines if not x.startswith("worker finished in"))

    def _merge_environment(self, events: list[dict[str, Any]]) -> None:
        """Hoist the worker-reported interpreter, numpy and BLAS facts into ``machine``."""
        machine = self.summary.machine
        for event in events:
            if event.get("event") == "environment" and machine.numpy_version is None:
                machine.python = PythonInfo(**event["python"])
                machine.numpy_version = event.get("numpy_version")
                machine.blas = BlasInfo(**event["blas"])
            if event.get("event") == "environment" and event.get("numba_version"):
                machine.numba_version = event["numba_version"]
            if event.get("event") == "done" and event.get("numba_threading_layer"):
                machine.numba_threading_layer = event["numba_threading_layer"]


def log_event(log: IO[str], event: dict[str, Any]) -> None:
    """Append ``event`` with a timestamp to a run's ``events.jsonl`` and flush it."""
    log.write(json.dumps({"t": time.time(), **event}, sort_keys=True) + "\n")
    log.flush()


def load_run_probes(
    settings: Settings, cancelled: Callable[[], bool], log: IO[str]
) -> Generator[ProbeStarted, None, dict[str, Any] | None]:
    """Probe unit costs for a run or sweep: the per-machine cache, or measured now.

    Yields ``ProbeStarted`` before each probe it measures (one worker each) and returns
    {name: probe result as a dict}; None when ``settings.probes`` is off, the caller was
    cancelled, or the probe files cannot be read (logged as ``probes_failed``).
    """
    if not settings.probes or cancelled():
        return None
    python = settings.python or sys.executable
    try:
        specs = discover_probes()
        key = cache_key(specs, python)
    except (UsageError, OSError) as exc:
        log_event(log, {"event": "probes_failed", "error": str(exc)})
        return None
    results = None if settings.refresh_probes else read_cache(key)
    if results is None:
        results = {}
        for spec in specs:
            if cancelled():
                return None
            yield ProbeStarted(spec.name)
            results[spec.name] = measure_probe(spec, python)
        write_cache(key, results)
    probes = {name: dataclasses.asdict(r) for name, r in results.items()}
    summary = {
        k: {"value": v["value"], "unit": v["unit"], "error": v["error"]} for k, v in probes.items()
    }
    log_event(log, {"event": "probes", "probes": summary})
    return probes


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return event if isinstance(event, dict) and "event" in event else None


def _wait(process: subprocess.Popen[bytes], seconds: float) -> int | None:
    """The worker's exit code if it exits within ``seconds``, else None."""
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the worker's whole process group (it leads its own session)."""
    if process.returncode is not None:  # already reaped: its group id may be reused
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
