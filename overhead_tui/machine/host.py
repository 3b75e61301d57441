"""Facts about this machine that the parent process can read without running a worker.

psutil reads what the operating system counts (CPU times with steal, available memory, the
logical CPUs); /proc/cpuinfo is read only for the CPU's name, which psutil does not give.
Parent-side only: the worker must not import psutil.
"""

from __future__ import annotations

import os
import platform
import sys
from typing import NamedTuple

import psutil

from overhead_tui.machine.cgroup import affinity_cpus
from overhead_tui.machine.environment import steering_environment
from overhead_tui.summary.records import MachineInfo, PythonInfo


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (Linux) or ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def describe_machine() -> MachineInfo:
    """Machine facts and the *current* interpreter; the worker later fills numpy and BLAS.

    ``environment`` holds the variables steering BLAS, OpenMP, numba and MKL as the workers
    inherit them (``engine.spawn.worker_env`` passes this process's environment on unchanged
    for these names).
    """
    return MachineInfo(
        cpu_model=cpu_model(),
        logical_cpus=psutil.cpu_count() or 0,
        effective_cpus=affinity_cpus(),
        python=PythonInfo(
            implementation=platform.python_implementation(),
            version=platform.python_version(),
            executable=sys.executable,
        ),
        platform=platform.platform(),
        environment=steering_environment(dict(os.environ)),
    )


class CpuTimes(NamedTuple):
    """System-wide CPU seconds (all CPUs) since boot, as :func:`read_cpu_times` reads them."""

    steal: float | None
    """Stolen by the hypervisor; None where the system does not count it (not Linux)."""
    total: float
    """Every state, guest time not counted twice (it is already inside user and nice)."""
    busy: float
    """total − idle − iowait − steal."""


def read_cpu_times() -> CpuTimes | None:
    """System-wide CPU times (``psutil.cpu_times``, seconds), or None where unreadable.

    On Linux the fields are those of /proc/stat's first line (proc(5)): user nice system idle
    iowait irq softirq steal guest guest_nice.
    """
    try:
        times = psutil.cpu_times()._asdict()
    except (OSError, psutil.Error):
        return None
    total = sum(v for k, v in times.items() if k not in ("guest", "guest_nice"))
    steal = times.get("steal")
    waiting = times["idle"] + times.get("iowait", 0.0) + (steal or 0.0)
    return CpuTimes(steal, total, total - waiting)


def other_cpu_fraction(
    before: CpuTimes | None, after: CpuTimes | None, own_cpu_s: float
) -> float | None:
    """Share of all CPUs' time that processes other than the worker used between two readings.

    Args:
        before, after: :func:`read_cpu_times` readings around the worker's life.
        own_cpu_s: the worker's own user + system CPU time (all its threads), in seconds.
    """
    if before is None or after is None:
        return None
    total = after.total - before.total
    if total <= 0:
        return None
    others = (after.busy - before.busy) - own_cpu_s
    return min(1.0, max(0.0, others / total))


def steal_fraction(before: CpuTimes | None, after: CpuTimes | None) -> float | None:
    """Share of CPU time stolen by the hypervisor between two :func:`read_cpu_times` readings
    (None where steal is not counted)."""
    if before is None or after is None or before.steal is None or after.steal is None:
        return None
    total = after.total - before.total
    if total <= 0:
        return None
    return max(0.0, (after.steal - before.steal) / total)


def available_memory_bytes() -> int | None:
    """Memory available to new processes without swapping (bytes; Linux: ``MemAvailable``), or
    None where it is not known."""
    try:
        return int(psutil.virtual_memory().available)
    except (OSError, psutil.Error):
        return None
