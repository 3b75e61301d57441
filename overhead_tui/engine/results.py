"""Turn a worker's event stream and exit status into a :class:`ScenarioResult`.

Pure functions, no processes: the runner feeds them what it read, tests feed them recorded
events.
"""

from __future__ import annotations

import signal
from typing import Any

from overhead_tui.engine.inputs import flops_of
from overhead_tui.engine.stats import describe, stability_warnings
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import ScenarioResult


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
        dense_kernel=spec.dense_kernel,
        error="not run",
    )


def apply_event(result: ScenarioResult, event: dict[str, Any]) -> None:
    """Record one worker event (a parsed JSON line) on ``result``."""
    kind = event.get("event")
    if kind == "compiled":
        result.first_call_s = float(event["first_call_s"])
    elif kind == "validated":
        result.max_abs_error = event.get("max_abs_error")
        result.tolerance = event.get("tolerance")
        if not event.get("ok"):
            result.status = "invalid"
            result.error = f"wrong result ({event.get('phase')} call): {event.get('reason')}"
    elif kind == "calibrated":
        result.loops = int(event["loops"])
    elif kind == "warmup":
        result.warmups_s.append(float(event["value_s"]))
    elif kind == "sample":
        result.samples_s.append(float(event["value_s"]))
    elif kind == "reference":
        result.reference_dispatch_ns.extend(float(x) for x in event.get("dispatch_ns", []))
    elif kind == "environment":
        result.blas_threads = (event.get("blas") or {}).get("threads")
        result.numba_threads = event.get("numba_threads")
        result.blas = _blas_libraries(event.get("blas"))
    elif kind == "counted":
        result.events_per_fma = event.get("per_fma") or None
        result.bytecode = list(event.get("bytecode", []))
        result.bytecode_n = event.get("bytecode_n")
    elif kind == "done":
        result.blas_threads = (event.get("blas") or {}).get("threads", result.blas_threads)
        result.blas = _blas_libraries(event.get("blas")) or result.blas
    elif kind == "build":
        result.build = event.get("info")
    elif kind == "error":
        skipped = event.get("kind") in ("missing_dependency", "unavailable")
        result.status = "skipped" if skipped else "error"
        message = str(event.get("message", "unknown error"))
        if event.get("kind") == "unavailable":
            message = message.removeprefix("Unavailable: ")
        if event.get("kind") == "missing_dependency":
            module = event.get("module") or "the missing package"
            message += f" (fix: pip install {module})"
        elif event.get("kind") == "memory":
            message = f"out of memory: {message}; fix: choose a smaller --size"
        result.error = message


def _blas_libraries(blas: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every BLAS a worker reported (``libraries``); older workers sent numpy's alone."""
    if not blas:
        return []
    libraries = blas.get("libraries")
    if isinstance(libraries, list):
        return [dict(x) for x in libraries if isinstance(x, dict)]
    return [{k: v for k, v in blas.items() if k != "libraries"}] if blas.get("library") else []


def finish(
    result: ScenarioResult,
    events: list[dict[str, Any]],
    returncode: int | None,
    timed_out: bool,
    timeout_s: float,
    stderr_tail: str,
) -> None:
    """Set the final status from the events seen and how the worker ended; compute stats."""
    kinds = {e.get("event") for e in events}
    if "error" in kinds or result.status == "invalid":
        pass  # apply_event already set the status and the reason
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


def _last_phase(events: list[dict[str, Any]]) -> str:
    kinds = [e.get("event") for e in events]
    if "sample" in kinds or "calibrated" in kinds:
        return "timing"
    if "environment" in kinds:
        return "in its first call (compiling or running the kernel)"
    if "started" in kinds:
        return "importing or setting up"
    return "starting"


def _crash_reason(returncode: int | None, stderr_tail: str) -> str:
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
