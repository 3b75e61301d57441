"""What a backend's check says (:class:`Capability`) and the helpers the checks share.

Each backend module (``perf``, ``pyspy``, ``callgrind``, ``scalene``) has its own ``detect()``:
whether it works here, and if not, why and how to fix it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from overhead_tui.engine.spawn import Cancel
    from overhead_tui.plugins.scenarios import ScenarioSpec
    from overhead_tui.worker.protocol import WorkerTask


@dataclass(frozen=True)
class Capability:
    """A backend's availability: ``ok``, its version, or the reason and the fix."""

    name: str
    """The backend's registry name (``py-spy``, ``perf``, ``scalene``, ``callgrind``)."""
    ok: bool
    """It can profile a worker here."""
    version: str | None = None
    """What its ``--version`` printed."""
    reason: str | None = None
    """Why it cannot run here (``ok`` False)."""
    fix: str | None = None
    """A command or step that would make it run."""
    path: str | None = None
    """The executable found (or how it is run, ``python -m scalene``)."""


@dataclass(frozen=True)
class BackendJob:
    """What a backend's ``run(job)`` profiles: the scenario's worker under the backend
    found by ``detect()``."""

    cap: Capability
    python: str
    """The interpreter of the worker."""
    worker: WorkerTask
    """The worker's task (mode ``profile``)."""
    spec: ScenarioSpec
    n: int
    timeout_s: float
    cancel: Cancel | None = None
    """Stops the backend's process group from another thread."""


def find_tool(name: str) -> str | None:
    """A tool next to this interpreter (the venv's bin) or on PATH."""
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


def tool_version(argv: list[str]) -> str | None:
    """The first ``N.N[.N]`` that ``argv`` prints, or None when it does not run."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"\d+\.\d+(\.\d+)?", proc.stdout + proc.stderr)
    return match.group(0) if match else None


def read_setting(path: str) -> str | None:
    """A kernel setting's text (``/proc/sys/...``), or None when unreadable."""
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None
