"""The profiler backends: one record each, the one place a backend is added.

A backend is a module of this folder with its command and parser, and a :class:`Backend`
record here: its name, how to check it works on this machine (``detect``, from
``capabilities``) and how to run a scenario under it (``run``: one signature for all).
``BACKENDS`` (the names, in the order ``doctor`` lists them), ``detect`` and
``profile.profile_scenario`` all read :data:`REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from overhead_tui.engine.protocol import WorkerSpec
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.profilers import capabilities
from overhead_tui.profilers.capabilities import Capability
from overhead_tui.summary.profile import BackendResult

CALLGRIND_MAX_N = 24
"""Largest n callgrind runs at: it executes about 50× slower and counts one call exactly."""

RunBackend = Callable[[Capability, str, WorkerSpec, ScenarioSpec, int, float], BackendResult]
"""``run(capability, python, worker_spec, scenario, n, timeout_s)`` → the backend's part of
the profile (``status`` ok / failed / …)."""


@dataclass(frozen=True)
class Backend:
    """One profiler backend."""

    name: str
    detect: Callable[[], Capability]
    run: RunBackend


def compiled_layer(spec: ScenarioSpec) -> str:
    """The compute layer JIT code of this scenario counts as."""
    return "simd_compute" if "simd_compute" in spec.layers else "scalar_compute"


def _run_perf(cap, python, worker, spec, n, timeout_s):  # type: ignore[no-untyped-def]
    from overhead_tui.profilers import perf

    return perf.profile(str(cap.path), python, worker, timeout_s, compiled_layer(spec))


def _run_pyspy(cap, python, worker, spec, n, timeout_s):  # type: ignore[no-untyped-def]
    from overhead_tui.profilers import pyspy

    return pyspy.profile(str(cap.path), python, worker, timeout_s)


def _run_callgrind(cap, python, worker, spec, n, timeout_s):  # type: ignore[no-untyped-def]
    from overhead_tui.profilers import callgrind

    small = replace(worker, n=min(n, CALLGRIND_MAX_N))
    return callgrind.profile(str(cap.path), python, small, timeout_s, compiled_layer(spec))


def _run_scalene(cap, python, worker, spec, n, timeout_s):  # type: ignore[no-untyped-def]
    from overhead_tui.profilers import scalene

    return scalene.profile(python, worker, spec, timeout_s)


REGISTRY: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("perf", capabilities.perf, _run_perf),
        Backend("pyspy", capabilities.pyspy, _run_pyspy),
        Backend("callgrind", capabilities.callgrind, _run_callgrind),
        Backend("scalene", capabilities.scalene, _run_scalene),
    )
}
"""Every backend by name, in the order ``doctor`` lists them."""

BACKENDS: tuple[str, ...] = tuple(REGISTRY)
"""Backend names, in the order ``doctor`` lists them."""


def detect(names: tuple[str, ...] = BACKENDS) -> dict[str, Capability]:
    """Capabilities of the named backends."""
    return {name: REGISTRY[name].detect() for name in names}
