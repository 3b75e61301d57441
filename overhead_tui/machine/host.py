"""Facts about this machine that the parent process can read without running a worker."""

from __future__ import annotations

import os
import platform
import sys

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
        logical_cpus=os.cpu_count() or 0,
        effective_cpus=affinity_cpus(),
        python=PythonInfo(
            implementation=platform.python_implementation(),
            version=platform.python_version(),
            executable=sys.executable,
        ),
        platform=platform.platform(),
        environment=steering_environment(dict(os.environ)),
    )


def read_cpu_times() -> tuple[int, int, int] | None:
    """(steal, total, busy) jiffies of all CPUs from the first line of /proc/stat, or None.

    The fields are user nice system idle iowait irq softirq steal (proc(5)); guest time is
    already included in user; busy = total − idle − iowait − steal.
    """
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            fields = fh.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 9:
        return None
    values = [int(x) for x in fields[1:9]]
    total = sum(values)
    return values[7], total, total - values[3] - values[4] - values[7]


OTHERS_WARN = 0.15
"""Share of all CPUs used by other processes above which a result or a probe is flagged (our
choice: 15 %, a third of one core on a 2-core machine; multi-threaded rungs lose a thread)."""


def other_cpu_fraction(
    before: tuple[int, int, int] | None, after: tuple[int, int, int] | None, own_cpu_s: float
) -> float | None:
    """Share of all CPUs' time that processes other than the worker used between two readings.

    Args:
        before, after: :func:`read_cpu_times` readings around the worker's life.
        own_cpu_s: the worker's own user + system CPU time (all its threads), in seconds.
    """
    if before is None or after is None:
        return None
    total = after[1] - before[1]
    if total <= 0:
        return None
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    others = (after[2] - before[2]) - own_cpu_s * ticks
    return min(1.0, max(0.0, others / total))


def steal_fraction(
    before: tuple[int, int, int] | None, after: tuple[int, int, int] | None
) -> float | None:
    """Share of CPU time stolen by the hypervisor between two :func:`read_cpu_times` readings."""
    if before is None or after is None:
        return None
    total = after[1] - before[1]
    if total <= 0:
        return None
    return max(0.0, (after[0] - before[0]) / total)
