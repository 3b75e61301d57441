"""Which profiler backends work here, and if not, why and how to fix it."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Capability:
    """A backend's availability: ``ok``, its version, or the reason and the fix."""

    name: str
    ok: bool
    version: str | None = None
    reason: str | None = None
    fix: str | None = None
    path: str | None = None


def _tool(name: str) -> str | None:
    """A tool next to this interpreter (the venv's bin) or on PATH."""
    local = Path(sys.executable).parent / name
    return str(local) if local.exists() else shutil.which(name)


def _version(argv: list[str]) -> str | None:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.search(r"\d+\.\d+(\.\d+)?", proc.stdout + proc.stderr)
    return match.group(0) if match else None


def _read(path: str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def perf() -> Capability:
    """perf with the cpu-clock software event (works in VMs without hardware counters)."""
    path = _tool("perf")
    if path is None:
        return Capability(
            "perf",
            False,
            reason="perf is not installed",
            fix="apt-get install linux-perf (Debian) or linux-tools-$(uname -r)",
        )
    version = _version([path, "--version"])
    if version is None:
        return Capability(
            "perf",
            False,
            reason="perf does not run for this kernel",
            fix="install the linux-perf package matching the kernel",
            path=path,
        )
    paranoid = _read("/proc/sys/kernel/perf_event_paranoid")
    import os

    if paranoid is not None and int(paranoid) > 2 and os.geteuid() != 0:
        return Capability(
            "perf",
            False,
            version,
            f"perf_event_paranoid is {paranoid} (> 2)",
            "sudo sysctl kernel.perf_event_paranoid=2",
            path,
        )
    return Capability("perf", True, version, path=path)


def pyspy() -> Capability:
    """py-spy, launching the worker as its child (ptrace parent -> child)."""
    path = _tool("py-spy")
    if path is None:
        return Capability(
            "pyspy", False, reason="py-spy is not installed", fix="pip install py-spy"
        )
    scope = _read("/proc/sys/kernel/yama/ptrace_scope")
    if scope is not None and int(scope) >= 2:
        return Capability(
            "pyspy",
            False,
            _version([path, "--version"]),
            f"ptrace_scope is {scope}: only root may trace",
            "sudo sysctl kernel.yama.ptrace_scope=1",
            path,
        )
    return Capability("pyspy", True, _version([path, "--version"]), path=path)


def callgrind() -> Capability:
    """valgrind's callgrind tool (instruction counts)."""
    path = shutil.which("valgrind")
    if path is None:
        return Capability(
            "callgrind", False, reason="valgrind is not installed", fix="apt-get install valgrind"
        )
    return Capability("callgrind", True, _version([path, "--version"]), path=path)


def scalene() -> Capability:
    """Scalene, run as ``python -m scalene``."""
    version = _version([sys.executable, "-m", "scalene", "--version"])
    if version is None:
        return Capability(
            "scalene", False, reason="scalene is not importable here", fix="pip install scalene"
        )
    return Capability("scalene", True, version, path=f"{sys.executable} -m scalene")
