"""Profile one scenario with the chosen backends; the result is a
:class:`~overhead_tui.summary.profile.ProfileRecord` (its JSON: ``summary.profile``).

The speed figure is never the profiled one: ``slowdown`` is
the profiled time per call over the unprofiled baseline's, measured in the same profile run
(``baseline_source``: :data:`BASELINE_SOURCES`); a ratio under ``1 + SLOWDOWN_NOISE`` reads
"within noise" (:func:`slowdown_text`), never "faster under the profiler".  ``notes`` say what
a backend cannot see in this rung (:func:`blind_spots`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import replace

from overhead_tui.engine.spawn import (
    Cancel,
    run_command,
    worker_command,
    worker_env,
)
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.profilers.capabilities import BackendJob, Capability
from overhead_tui.profilers.outcome import NOTHING_RECORDED
from overhead_tui.profilers.registry import BACKENDS, REGISTRY, detect
from overhead_tui.summary.profile import (
    BackendResult,
    CallgrindResult,
    PerfResult,
    ProfileRecord,
)
from overhead_tui.worker.protocol import Profiled, WorkerTask, worker_task

SLOWDOWN_NOISE = 0.05
"""Relative tolerance of a slowdown (5 %): a profiled run less than 5 % slower than the
unprofiled baseline, or faster than it, is *within noise*.  Two back-to-back unprofiled runs of
the same loop on a shared machine differ by a few percent, so such a ratio says nothing about
the profiler, and a profiler never makes the kernel faster."""

BASELINE_SOURCES = {
    "profile_run": "an unprofiled worker run in this profile run, just before the profilers "
    "(same n, same duration)",
}
"""``baseline_source`` values and what they mean; profiles without one predate the field."""

THREAD_LAYERS = ("parallel", "dense_kernel")
"""Layers whose time may run in BLAS/OpenMP worker threads rather than the main thread."""

BLIND_SPOTS = {
    "scalene": "Scalene samples the main thread with signals: time in BLAS/OpenMP worker "
    "threads is not attributed to lines",
    "pyspy": "py-spy's samples are kept only on the main thread's kernel loop (profile_loop): "
    "time in BLAS/OpenMP worker threads is left out",
}
"""What a backend cannot see in a rung that runs worker threads (:data:`THREAD_LAYERS`)."""
BLIND = "cannot see"
"""The status of a backend that ran but could not attribute the rung's time (its blind spot:
:data:`BLIND_SPOTS`); not a failure: ``profile`` still exits 0 when the others worked."""
SEE_INSTEAD = "perf and callgrind see every thread: read their Native tab"
"""The alternative a blind backend points to."""
INTERRUPTED = "interrupted"
"""The status of the backend that Ctrl-C, SIGTERM or SIGHUP (``cancel``) stopped while it ran:
its profiler and worker were killed, and what they left is no result (never ``failed`` with
the profiler's last line)."""
NOT_RUN = "not run"
"""The status of a backend the profile never started, the interrupt having come first (one
that cannot run here stays ``unavailable``)."""
STOPPED_WHILE_RUNNING = "stopped by Ctrl-C, SIGTERM or SIGHUP while it ran: no result"
"""The reason of an :data:`INTERRUPTED` backend."""
NOT_STARTED = "interrupted before it started"
"""The reason of a backend :data:`NOT_RUN` because of the interrupt."""
KERNEL_FAMILY = re.compile(r"_(HASWELL|SKYLAKEX|COOPERLAKE|SAPPHIRERAPIDS|ZEN|SANDYBRIDGE|"
                           r"PRESCOTT|NEHALEM|ATOM|NEOVERSEN1|NEOVERSEV1|ARMV8)\b")  # fmt: skip
"""OpenBLAS's kernel-family suffix in a symbol name (``dgemm_kernel_HASWELL``)."""


def _families(part: BackendResult) -> set[str]:
    rows = part.top_symbols if isinstance(part, PerfResult | CallgrindResult) else ()
    return {m.group(1) for r in rows if (m := KERNEL_FAMILY.search(r.symbol))}


def kernel_family_notes(parts: dict[str, BackendResult]) -> dict[str, BackendResult]:
    """A note on callgrind's part when its BLAS kernels are another family than perf's:
    valgrind emulates a CPU without AVX-512, so OpenBLAS picks an older kernel under it and
    callgrind counts that kernel, not the one the timed runs use."""
    callgrind, perf = parts.get("callgrind"), parts.get("perf")
    if callgrind is None or perf is None or not callgrind.ok or not perf.ok:
        return parts
    emulated, timed = _families(callgrind), _families(perf)
    if not emulated or not timed or emulated & timed:
        return parts
    note = (
        f"callgrind ran OpenBLAS's {', '.join(sorted(emulated))} kernels while perf saw "
        f"{', '.join(sorted(timed))}: valgrind's emulated CPU lacks the newer vector "
        "instructions, so its counts are of another kernel than the timed one"
    )
    return {**parts, "callgrind": replace(callgrind, notes=(*callgrind.notes, note))}


PYSPY_NO_NATIVE = (
    "py-spy ran without --native: C frames are not named, native time is booked to the "
    "calling Python line"
)


def slowdown_text(ratio: float | None) -> str:
    """``"1.42× slower under the profiler"``, ``"within noise (0.97×)"`` within
    ``SLOWDOWN_NOISE`` of 1, or, below that, a faster profiled run said to mean a disturbed
    baseline (``ratio``: profiled / unprofiled time per call); "" when None."""
    if not ratio:
        return ""
    if 1 - SLOWDOWN_NOISE <= ratio < 1 + SLOWDOWN_NOISE:
        return f"within noise ({ratio:.2f}×, tolerance {SLOWDOWN_NOISE * 100:.0f} %)"
    if ratio < 1:  # a profiler never speeds the kernel up: the baseline was disturbed
        return (
            f"no slowdown measured ({ratio:.2f}×, more than {SLOWDOWN_NOISE * 100:.0f} % below "
            "the unprofiled baseline: the baseline ran on a busier host)"
        )
    return f"{ratio:.2f}× slower under the profiler"


def baseline_source_text(profile: ProfileRecord | None) -> str:
    """What a profile's unprofiled baseline was, in words (older profiles: not recorded)."""
    source = profile.baseline_source if profile else None
    return BASELINE_SOURCES.get(source, source) if source else "source not recorded"


def baseline_text(profile: ProfileRecord | None) -> str:
    """Where a profile's slowdowns come from: the baseline's time per call and its source."""
    per_call = profile.baseline_per_call_s if profile else None
    if not per_call:
        return "no unprofiled baseline: no slowdown"
    return f"slowdowns against {per_call * 1e3:.4g} ms per call: {baseline_source_text(profile)}"


def blind_spots(
    backend: str, layers: tuple[str, ...], blas_threads: int | None, part: BackendResult
) -> list[str]:
    """Notes on what ``backend`` cannot see in a rung with ``layers`` (and ``blas_threads``
    threads in its BLAS pool, when known); [] when it sees everything the rung does."""
    notes = []
    # a BLAS pool of several threads matters only to a rung that calls into a library: a
    # pure-Python rung's worker has the pool too, and never uses it
    pooled = (blas_threads or 0) > 1 and "library_layers" in layers
    threaded = any(x in layers for x in THREAD_LAYERS) or pooled
    if threaded and backend in BLIND_SPOTS:
        notes.append(BLIND_SPOTS[backend])
    if backend == "pyspy" and getattr(part, "native", None) is False:
        notes.append(PYSPY_NO_NATIVE)
    return notes


def profile_scenario(
    spec: ScenarioSpec,
    n: int,
    dtype: str = "float64",
    backends: tuple[str, ...] = BACKENDS,
    duration_s: float = 3.0,
    timeout_s: float = 180.0,
    python: str | None = None,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    cancel: Cancel | None = None,
    blas_threads: int | None = None,
) -> ProfileRecord:
    """Run ``spec`` under each backend; missing backends are reported, never raised.

    First one unprofiled worker at the same ``n`` and ``duration_s`` (seconds): every
    backend's ``slowdown`` is over its time per call.  ``blas_threads`` (the rung's BLAS pool,
    when a ladder run measured it) adds the notes of :func:`blind_spots`.

    Returns the profile; py-spy's part keeps its kernel stacks in memory for the stack
    exports (``pyspy.PyspySamples.stacks``, never written).  ``cancel.set()`` from another
    thread kills the running backend's process group and skips the rest: the result is then
    ``cancelled``, the backends that finished as they finished, the one stopped
    :data:`INTERRUPTED` and those after it :data:`NOT_RUN`.
    """
    result = _profile_scenario(
        spec, n, dtype, backends, duration_s, timeout_s, python, seed, progress, cancel
    )
    parts = dict(result.backends)
    for name, part in parts.items():
        notes = blind_spots(name, spec.layers, blas_threads, part)
        blind = part.status == "failed" and part.reason in NOTHING_RECORDED
        if blind and name in BLIND_SPOTS and BLIND_SPOTS[name] in notes:
            # "recorded no time in the scenario" on a threaded rung is the blind spot, not a
            # failure: the backend ran and could not see where this rung's time goes
            parts[name] = replace(
                part,
                status=BLIND,
                notes=tuple(notes),
                reason=f"{part.reason}: it cannot see this rung's threads",
                fix=SEE_INSTEAD,
            )
        elif part.status in ("ok", "failed") and notes:
            parts[name] = replace(part, notes=tuple(notes))
    parts = kernel_family_notes(parts)
    cancelled = cancel is not None and cancel.is_set()
    return replace(result, backends=parts, cancelled=cancelled)


def _profile_scenario(
    spec: ScenarioSpec,
    n: int,
    dtype: str,
    backends: tuple[str, ...],
    duration_s: float,
    timeout_s: float,
    python: str | None,
    seed: int,
    progress: Callable[[str], None] | None,
    cancel: Cancel | None,
) -> ProfileRecord:
    python = python or sys.executable
    worker = worker_task("profile", spec, n=n, dtype=dtype, seed=seed, duration_s=duration_s)
    caps = detect(tuple(b for b in backends if b in BACKENDS))
    parts: dict[str, BackendResult] = {}
    if progress:
        progress("unprofiled baseline")
    baseline = run_command(worker_command(python, worker), timeout_s, worker_env(), cancel)
    base = baseline.message(Profiled)
    result = ProfileRecord(
        spec.name,
        n,
        dtype,
        parts,
        baseline_per_call_s=base.per_call_s if base else None,
        baseline_source="profile_run",
        baseline_calls=base.calls if base else None,
    )
    if base is None and cancel is not None and cancel.is_set():
        return replace(
            result,
            backends=_not_started(caps),
            error="interrupted during the unprofiled baseline: nothing was profiled",
        )
    if base is None:  # no point profiling what does not run: every backend would fail too
        if baseline.timed_out:
            reason = f"the scenario did not finish unprofiled within {timeout_s:g} s"
        else:
            reason = baseline.worker_error or "the scenario did not run unprofiled"
        for name, cap in caps.items():
            parts[name] = (
                BackendResult("failed", cap.version, reason=f"not profiled: {reason}")
                if cap.ok
                else _unavailable(cap)
            )
        return replace(result, error=reason)
    for name, cap in caps.items():
        if cancel is not None and cancel.is_set():  # the rest is not started
            parts.update(_not_started({k: c for k, c in caps.items() if k not in parts}))
            break
        if progress:
            progress(name)
        if not cap.ok:
            parts[name] = _unavailable(cap)
            continue
        part = _run_backend(name, cap, python, worker, spec, n, timeout_s, cancel)
        if not part.ok and cancel is not None and cancel.is_set():  # killed, not failed
            part = BackendResult(INTERRUPTED, reason=STOPPED_WHILE_RUNNING)
        profiled, per_call = part.profiled_per_call_s, result.baseline_per_call_s
        slowdown = profiled / per_call if profiled and per_call else None
        parts[name] = replace(part, version=cap.version, slowdown=slowdown)
    return result


def _not_started(caps: dict[str, Capability]) -> dict[str, BackendResult]:
    """The parts of backends an interrupt kept from starting: :data:`NOT_RUN`, but for those
    that could not run here anyway (``unavailable``, with their reason and fix)."""
    return {
        name: BackendResult(NOT_RUN, cap.version, reason=NOT_STARTED)
        if cap.ok
        else _unavailable(cap)
        for name, cap in caps.items()
    }


def _unavailable(cap: Capability) -> BackendResult:
    return BackendResult("unavailable", cap.version, reason=cap.reason, fix=cap.fix)


def _run_backend(
    name: str,
    cap: Capability,
    python: str,
    worker: WorkerTask,
    spec: ScenarioSpec,
    n: int,
    timeout_s: float,
    cancel: Cancel | None = None,
) -> BackendResult:
    """Run one backend (``registry.REGISTRY``) on the scenario."""
    assert cap.path is not None
    backend = REGISTRY.get(name)
    if backend is None:
        return BackendResult("failed", reason=f"unknown backend {name}")
    return backend.run(BackendJob(cap, python, worker, spec, n, timeout_s, cancel))
