"""Profile one scenario with the chosen backends; the result is the profile JSON.

``{"scenario", "n", "dtype", "baseline_per_call_s", "backends": {name: {"status": ok |
unavailable | failed, "reason", "fix", "samples", "errors", "slowdown", "layers" {layer:
fraction}, "top_symbols" [...], "instructions_per_fma", ...}}}``.  The speed figure is never
the profiled one: ``slowdown`` is the profiled time per call over an unprofiled run's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from overhead_tui.engine.spawn import (
    Cancel,
    cancel_scope,
    run_command,
    worker_command,
    worker_env,
)
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.profilers import callgrind, perf, pyspy
from overhead_tui.profilers.capabilities import BACKENDS, Capability, detect

CALLGRIND_MAX_N = 24
"""callgrind runs at this size at most (instructions per FMA barely depend on n beyond it)."""


def compiled_layer(spec: ScenarioSpec) -> str:
    """The compute layer JIT code of this scenario counts as."""
    return "simd_compute" if "simd_compute" in spec.layers else "scalar_compute"


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
) -> dict[str, Any]:
    """Run ``spec`` under each backend; missing backends are reported, never raised.

    Returns the profile JSON; ``_stacks`` (py-spy samples, for the stack exports) is kept
    in memory only.  ``cancel.set()`` from another thread kills the running backend's process
    group and skips the rest: the result then has ``"cancelled": True`` (and is incomplete).
    """
    with cancel_scope(cancel):
        result = _profile_scenario(
            spec, n, dtype, backends, duration_s, timeout_s, python, seed, progress, cancel
        )
    if cancel is not None and cancel.is_set():
        result["cancelled"] = True
    return result


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
) -> dict[str, Any]:
    python = python or sys.executable
    worker = {
        "mode": "profile",
        "name": spec.name,
        "path": str(spec.path),
        "n": n,
        "dtype": dtype,
        "seed": seed,
        "duration_s": duration_s,
        "requires": list(spec.requires),
    }
    caps = detect(tuple(b for b in backends if b in BACKENDS))
    result: dict[str, Any] = {"scenario": spec.name, "n": n, "dtype": dtype, "backends": {}}
    if progress:
        progress("unprofiled baseline")
    baseline = run_command(
        worker_command(python, {**worker, "duration_s": duration_s / 2}), timeout_s, worker_env()
    )
    base = baseline.event("profiled")
    result["baseline_per_call_s"] = base["per_call_s"] if base else None
    if base is None:  # no point profiling what does not run: every backend would fail too
        if baseline.timed_out:
            reason = f"the scenario did not finish unprofiled within {timeout_s:g} s"
        else:
            reason = baseline.worker_error or "the scenario did not run unprofiled"
        result["error"] = reason
        for name, cap in caps.items():
            result["backends"][name] = (
                {"status": "failed", "reason": f"not profiled: {reason}", "version": cap.version}
                if cap.ok
                else _unavailable(cap)
            )
        return result
    for name, cap in caps.items():
        if cancel is not None and cancel.is_set():  # the rest is not started
            break
        if progress:
            progress(name)
        if not cap.ok:
            result["backends"][name] = _unavailable(cap)
            continue
        part = _run_backend(name, cap, python, worker, spec, n, timeout_s)
        part["version"] = cap.version
        profiled = part.pop("profiled", None)
        if profiled and result["baseline_per_call_s"]:
            part["slowdown"] = profiled["per_call_s"] / result["baseline_per_call_s"]
        result["backends"][name] = part
    return result


def _unavailable(cap: Capability) -> dict[str, Any]:
    return {"status": "unavailable", "reason": cap.reason, "fix": cap.fix, "version": cap.version}


def _run_backend(
    name: str,
    cap: Capability,
    python: str,
    worker: dict[str, Any],
    spec: ScenarioSpec,
    n: int,
    timeout_s: float,
) -> dict[str, Any]:
    assert cap.path is not None
    if name == "perf":
        part = perf.profile(cap.path, python, worker, timeout_s)
        shares = part.pop("_shares", [])
        if part["status"] == "ok":
            part["layers"] = perf.layer_fractions(shares, compiled_layer(spec))
        return part
    if name == "pyspy":
        return pyspy.profile(cap.path, python, worker, timeout_s)
    if name == "callgrind":
        small = {**worker, "n": min(n, CALLGRIND_MAX_N)}
        return callgrind.profile(cap.path, python, small, timeout_s, compiled_layer(spec))
    if name == "scalene":
        from overhead_tui.profilers import scalene

        return scalene.profile(python, worker, spec, timeout_s)
    return {"status": "failed", "reason": f"unknown backend {name}"}
