"""Turn a rung's worker messages and how its workers ended into its :class:`ScenarioResult`.

:func:`rung_result` is the fold: the planned result, every message of every worker in
order (:func:`apply_message`), then the last worker's ending (:func:`finish`).  Pure, no
processes: the runner feeds it what it read, tests feed it recorded messages.
"""

from __future__ import annotations

import copy
import signal
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

from overhead_tui.engine.stats import describe, stability_warnings
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.codec import ABSENT
from overhead_tui.summary.measured import Blas, BlasLibrary, BuildInfo, EventsPerFma
from overhead_tui.summary.product import flops_of
from overhead_tui.summary.records import BlasInfo, MachineInfo, PythonInfo, ScenarioResult
from overhead_tui.summary.vocabulary import NOT_RUN_YET
from overhead_tui.worker.protocol import (
    BlasReport,
    Build,
    Calibrated,
    Compiled,
    Counted,
    Done,
    Environment,
    Error,
    Generated,
    Message,
    PythonReport,
    Reference,
    Resident,
    Sample,
    Validated,
    Warmup,
)


def new_result(
    spec: ScenarioSpec, n: int, dtype: str, m: int | None = None, k: int | None = None
) -> ScenarioResult:
    """A not-yet-run result (status ``skipped``) carrying the scenario's declarations; with
    ``m``/``k`` for the rectangular product A (m×k)·B (k×n) (``None``: n)."""
    return ScenarioResult(
        name=spec.name,
        title=spec.title,
        rung=spec.rung,
        layers=list(spec.layers),
        removes=list(spec.removes),
        n=n,
        dtype=dtype,
        flops=flops_of(n, m, k),
        m=m,
        k=k,
        description=spec.description,
        kernel_source=spec.kernel_source,
        kernel_lines=list(spec.kernel_lines),
        dense_kernel=spec.dense_kernel,
        error=NOT_RUN_YET,
    )


@dataclass(frozen=True)
class WorkerEnding:
    """One of a rung's worker processes as the runner saw it end."""

    messages: tuple[Message, ...]
    """Its messages in order (with the runner's own ``error`` for a wrong interpreter)."""
    returncode: int | None
    """Its exit code (negative: killed by that signal; None: it never started)."""
    timed_out: bool
    """It outlived the timeout and its process group was killed."""
    stderr_tail: str
    """The end of its stderr log (a crash's detail)."""


def rung_result(
    planned: ScenarioResult,
    workers: Sequence[WorkerEnding],
    processes_planned: int,
    repeats: int,
    timeout_s: float,
    cancelled: bool = False,
    prebuilt_s: float | None = None,
) -> ScenarioResult:
    """The result of a rung's plan: a new result folded from ``planned`` (left unchanged;
    it carries what the runner measured around the workers: ``wall_s``, ``steal_fraction``,
    ``other_cpu_fraction``, ``observer_*``), every message of its ``workers`` in order, and
    the last worker's ending.  Samples are pooled over the workers; how the last one ended
    decides the status; a rung cut short by a cancel (``cancelled``) has fewer samples than
    ``repeats`` and is no result.  No worker (cancelled before it started): skipped.
    ``prebuilt_s``: the run's build phase compiled the rung's module a moment before its timed
    worker loaded it, in that many seconds (its build is then no cached one).

    The result is sealed (:meth:`ScenarioResult.seal`): what was measured is fixed."""
    result = copy.deepcopy(planned)
    if not workers:
        result.status, result.error = "skipped", "cancelled before it ran"
        result.seal()
        return result
    result.error = None
    for worker in workers:
        for message in worker.messages:
            apply_message(result, message)
    result.worker_processes = len(workers) if processes_planned > 1 else None
    last = workers[-1]
    finish(
        result, list(last.messages), last.returncode, last.timed_out, timeout_s, last.stderr_tail
    )
    if prebuilt_s is not None and result.build is not None:
        result.build = replace(result.build, cached=False, build_s=prebuilt_s)
    short = len(result.samples_s) < repeats
    if cancelled and (result.status != "ok" or short):
        result.status, result.error = "skipped", "cancelled while running"
        result.clear_speed()
    result.seal()
    return result


def apply_message(result: ScenarioResult, message: Message) -> None:
    """Record one worker message on ``result`` (a step of :func:`rung_result`)."""
    match message:
        case Compiled():
            result.first_call_s = message.first_call_s
        case Validated():
            result.max_abs_error = message.max_abs_error
            result.tolerance = message.tolerance
            if not message.ok:
                result.status = "invalid"
                result.error = f"wrong result ({message.phase} call): {message.reason}"
        case Calibrated():
            result.loops = message.loops
        case Warmup():
            result.warmups_s += (message.value_s,)
        case Sample():
            result.samples_s += (message.value_s,)
            if message.cores is not None:
                result.sample_cores += (message.cores,)
            if message.thread_cores is not None:
                result.sample_thread_cores += (message.thread_cores,)
        case Reference():
            result.reference_dispatch_ns += tuple(message.dispatch_ns)
        case Environment():
            result.blas_threads = message.blas.threads if message.blas else None
            result.numba_threads = message.numba_threads
            result.blas = _blas_libraries(message.blas)
        case Counted():
            counted = message.per_fma  # an older line's empty object: none (under four sizes)
            result.events_per_fma = counted if counted != EventsPerFma() else None
            result.bytecode = tuple(message.bytecode)
            result.bytecode_n = message.bytecode_n
        case Done():
            if message.blas is not None:
                result.blas_threads = message.blas.threads
            result.blas = _blas_libraries(message.blas) or result.blas
        case Build():
            result.build = message.info if message.info != BuildInfo() else None
        case Generated():
            result.generated_code = message.code
        case Resident():
            result.resident = message.timing
        case Error():
            result.status = "skipped" if message.cause in SKIPPED_ERRORS else "error"
            result.error = error_text(message)


INSTALL_FIXES = {
    "torch": "make torch, or pip install torch --index-url https://download.pytorch.org/whl/cpu "
    "(the CPU build; a plain pip install torch takes a CUDA build of several GB)",
}
"""A missing module -> the command that installs it where ``pip install NAME`` is wrong."""
SKIPPED_ERRORS = ("missing_dependency", "unavailable")
"""Error kinds that skip a scenario (it cannot run here) rather than fail it."""


def error_text(error: Error) -> str:
    """A worker error in words, with the fix where there is one."""
    message = error.message
    if error.cause == "unavailable":
        message = message.removeprefix("Unavailable: ")
    if error.cause == "missing_dependency":
        module = error.module or "the missing package"
        message += f" (fix: {INSTALL_FIXES.get(module, f'pip install {module}')})"
    elif error.cause == "memory":
        message = f"out of memory: {message}; fix: choose a smaller --size"
    return message


def _blas_libraries(blas: BlasReport | None) -> tuple[BlasLibrary, ...]:
    """Every BLAS a worker reported (``libraries``); older workers sent numpy's alone (the
    fields it sent: the others stay out of the summary)."""
    if blas is None:
        return ()
    if blas.libraries is not None:
        return tuple(blas.libraries)
    sent = {
        f.name: ABSENT if getattr(blas, f.name, None) is None else getattr(blas, f.name)
        for f in fields(BlasLibrary)
    }
    return (BlasLibrary(**sent),) if blas.library else ()


def machine_blas(blas: Blas, source: str) -> BlasInfo:
    """The summary's ``machine.blas`` from a worker's report (``source``: which worker)."""
    return BlasInfo(blas.library, blas.version, blas.architecture, blas.threads, source)


def finish(
    result: ScenarioResult,
    events: list[Message],
    returncode: int | None,
    timed_out: bool,
    timeout_s: float,
    stderr_tail: str,
) -> None:
    """Set the final status from the events seen and how the worker ended; compute stats."""
    kinds = {e.kind for e in events}
    if "error" in kinds or result.status == "invalid":
        pass  # apply_message already set the status and the reason
    elif timed_out:
        phase = _last_phase(events)
        result.status = "timeout"
        result.error = f"no result after {timeout_s:g} s (was {phase}); the worker was killed"
    elif "done" in kinds and result.samples_s:
        result.status = "ok"
        result.error = None
    else:
        result.status = "crashed"
        result.error = _crash_reason(returncode, stderr_tail)
    if result.status == "ok":
        _fill_stats(result)
    else:
        result.clear_speed()


def _last_phase(events: list[Message]) -> str:
    kinds = [e.kind for e in events]
    if "sample" in kinds or "calibrated" in kinds:
        return "timing"
    if "validated" in kinds:  # the first call returned and was checked: warming up, calibrating
        return "warming up or calibrating after its first call"
    if "environment" in kinds:
        return "in its setup or first call (building, compiling or running the kernel)"
    if "started" in kinds:
        return "importing or setting up"
    return "starting"


CRASH_CAUSES = {
    "in XLA_FLAGS": ("XLA_FLAGS holds a flag XLA does not know", "fix: correct or unset XLA_FLAGS"),
    "parse_flags_from_env": ("XLA could not read XLA_FLAGS", "fix: correct or unset XLA_FLAGS"),
}
"""A text in a dying worker's stderr -> (what it means, the fix): a library that aborts the
process on a bad environment variable (XLA's ``parse_flags_from_env.cc``), so the rung never
reports an error of its own."""


def _crash_reason(returncode: int | None, stderr_tail: str) -> str:
    for marker, (cause, fix) in CRASH_CAUSES.items():
        if marker in stderr_tail:
            return f"worker exited: {cause} (its stderr: {_crash_detail(stderr_tail)[2:]}); {fix}"
    detail = _crash_detail(stderr_tail)
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        hint = " (possibly the out-of-memory killer)" if name == "SIGKILL" else ""
        return f"worker killed by {name}{hint}{detail}"
    return f"worker exited with code {returncode} before reporting a result{detail}"


def _crash_detail(stderr_tail: str) -> str:
    """The most useful line of a dying worker's stderr: faulthandler's innermost frame."""
    lines = [x.strip() for x in stderr_tail.splitlines() if x.strip()]
    for i, line in enumerate(lines):
        if line.startswith(("Current thread", "Thread 0x")) and i + 1 < len(lines):
            return f" in {lines[i + 1][:200]}"
    useful = [x for x in lines if not x.startswith(("Extension modules", "Fatal Python"))]
    return f": {useful[-1][:200]}" if useful else ""


def _fill_stats(result: ScenarioResult) -> None:
    stats = describe(result.samples_s)
    result.min_s = stats.min_s
    result.median_s = stats.median_s
    result.iqr_s = stats.iqr_s
    result.stdev_s = stats.stdev_s
    result.cv = stats.cv
    result.gflops = result.flops / stats.median_s / 1e9 if stats.median_s > 0 else None
    result.ns_per_fma = stats.median_s / (result.flops / 2) * 1e9 if result.flops else None
    if result.first_call_s is not None:
        result.compile_s = max(0.0, result.first_call_s - stats.median_s)
    result.warnings = stability_warnings(
        stats,
        result.loops or 1,
        result.steal_fraction,
        result.other_cpu_fraction,
        result.observer_fraction,
        result.observer,
    )


def merge_environment(
    machine: MachineInfo,
    events: list[Message],
    environment_seen: bool,
    dense: bool = False,
    name: str = "",
) -> bool:
    """Hoist a rung's worker-reported interpreter, numpy and BLAS facts into ``machine``;
    returns whether a worker's environment has now been seen (``environment_seen``: before).

    The first worker's facts replace the runner's own. ``machine.blas`` is numpy's BLAS in the
    dense kernel's worker (after its set-up) when that ran, else numpy's default in the first
    worker (before set-up); ``source`` says so.
    """
    if any(isinstance(e, Error) and e.cause == "interpreter" for e in events):
        return environment_seen  # another interpreter than requested: not the run's facts
    for event in events:
        if isinstance(event, Environment):
            if not environment_seen:
                environment_seen = True
                python = event.python or PythonReport()
                machine.python = PythonInfo(
                    python.implementation, python.version, python.executable
                )
                machine.numpy_version = event.numpy_version
                machine.blas = machine_blas(
                    event.blas or BlasReport(), "numpy's default in the first worker"
                )
            if event.numba_version:
                machine.numba_version = event.numba_version
        if isinstance(event, Done):
            if event.numba_threading_layer:
                machine.numba_threading_layer = event.numba_threading_layer
            if dense and event.blas:
                machine.blas = machine_blas(event.blas, f"the dense kernel's worker ({name})")
    return environment_seen
