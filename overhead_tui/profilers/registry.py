"""The profiler backends, one :class:`Backend` record each, built from their modules.

A backend is a module of this folder with its command and parser, ``detect()`` (does it work
on this machine; if not, why and the fix: a ``capabilities.Capability``) and ``run(...)`` (one
signature for all); its name in :data:`BACKEND_MODULES` makes it one.  ``BACKENDS`` (the names,
in the order ``doctor`` lists them), ``detect`` and ``profile.profile_scenario`` all read
:data:`REGISTRY`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from overhead_tui.profilers.capabilities import BackendJob, Capability
from overhead_tui.summary.profile import BackendResult

RunBackend = Callable[[BackendJob], BackendResult]
"""``run(job)`` → the backend's part of the profile (``status`` ok / failed / …)."""


@dataclass(frozen=True)
class Backend:
    """One profiler backend."""

    name: str
    detect: Callable[[], Capability]
    run: RunBackend


BACKEND_MODULES: tuple[str, ...] = ("perf", "pyspy", "callgrind", "scalene")
"""The modules of this folder that are backends (each with ``detect()`` and ``run(...)``), in
the order ``doctor`` lists them: adding a backend is its module and its name here."""


def _backend(name: str) -> Backend:
    module = importlib.import_module(f"overhead_tui.profilers.{name}")
    return Backend(name, module.detect, module.run)


REGISTRY: dict[str, Backend] = {name: _backend(name) for name in BACKEND_MODULES}
"""Every backend by name, in the order ``doctor`` lists them."""

BACKENDS: tuple[str, ...] = tuple(REGISTRY)
"""Backend names, in the order ``doctor`` lists them."""


def detect(names: tuple[str, ...] = BACKENDS) -> dict[str, Capability]:
    """Capabilities of the named backends."""
    return {name: REGISTRY[name].detect() for name in names}
