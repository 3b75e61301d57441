"""CPU quota of this process's control group: how many cores' worth of time it may use.

Containers and CI runners often see every CPU of the host (``os.cpu_count()``, the affinity
mask) but are throttled by a CFS quota.  The quota is ``quota / period`` cores:

* cgroup v2: ``cpu.max`` holds ``"$MAX $PERIOD"`` where ``$MAX`` is ``max`` for no limit
  (kernel docs, Documentation/admin-guide/cgroup-v2.rst, "cpu.max");
* cgroup v1: ``cpu.cfs_quota_us`` (−1 for no limit) and ``cpu.cfs_period_us``
  (Documentation/scheduler/sched-bwc.rst).

A limit anywhere up the hierarchy applies, so the smallest quota from the process's group up
to the root wins.  ``effective_cores`` = min(CPUs in the affinity mask, quota).
"""

from __future__ import annotations

from pathlib import Path

import psutil

CGROUP_ROOT = Path("/sys/fs/cgroup")


def parse_cpu_max(text: str) -> float | None:
    """Cores allowed by a cgroup v2 ``cpu.max`` text (``"max 100000"`` → None, no limit).

    Raises:
        ValueError: the text is not ``"<quota|max> <period>"`` with a positive period.
    """
    fields = text.split()
    if len(fields) not in (1, 2):
        raise ValueError(f"cpu.max: expected '<quota|max> [period]', got {text!r}")
    period = int(fields[1]) if len(fields) == 2 else 100_000  # kernel default period (µs)
    if period <= 0:
        raise ValueError(f"cpu.max: period must be positive, got {period}")
    if fields[0] == "max":
        return None
    return int(fields[0]) / period


def parse_cfs(quota_text: str, period_text: str) -> float | None:
    """Cores allowed by cgroup v1 ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us`` (−1 → None).

    Raises:
        ValueError: either text is not an integer, or the period is not positive.
    """
    quota, period = int(quota_text.strip()), int(period_text.strip())
    if period <= 0:
        raise ValueError(f"cpu.cfs_period_us must be positive, got {period}")
    return None if quota < 0 else quota / period


def _own_groups(proc_cgroup: str) -> tuple[str | None, str | None]:
    """(v2 path, v1 cpu-controller path) of this process from /proc/self/cgroup text."""
    v2 = v1 = None
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        hierarchy, controllers, path = parts
        if hierarchy == "0" and controllers == "":
            v2 = path
        elif "cpu" in controllers.split(","):
            v1 = path
    return v2, v1


def _ancestors(base: Path, group: str) -> list[Path]:
    parts = [p for p in group.split("/") if p]
    return [base.joinpath(*parts[:k]) for k in range(len(parts), -1, -1)]


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None


def cgroup_cpu_quota(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> float | None:
    """The tightest CPU quota (cores, e.g. 1.5) over this process's cgroups, or None.

    Args:
        root: where the cgroup filesystem is mounted (a test passes a fake tree).
        proc_cgroup: the text of /proc/self/cgroup (read when None).

    Unreadable or malformed files count as "no limit": the quota only ever lowers the count.
    """
    if proc_cgroup is None:
        proc_cgroup = _read(Path("/proc/self/cgroup")) or ""
    v2, v1 = _own_groups(proc_cgroup)
    quotas: list[float] = []
    for base, group, reader in (
        (root, v2, lambda d: parse_cpu_max(_read(d / "cpu.max") or "max")),
        (root / "cpu", v1, _read_cfs),
    ):
        if group is None:
            continue
        for directory in _ancestors(base, group):
            try:
                quota = reader(directory)
            except ValueError:
                continue
            if quota is not None:
                quotas.append(quota)
    return min(quotas, default=None)


def _read_cfs(directory: Path) -> float | None:
    quota, period = _read(directory / "cpu.cfs_quota_us"), _read(directory / "cpu.cfs_period_us")
    if quota is None or period is None:
        return None
    return parse_cfs(quota, period)


def affinity() -> list[int]:
    """The CPUs in this process's scheduler affinity mask, sorted (``psutil``; every logical
    CPU where the system has no affinity, e.g. macOS)."""
    try:
        return sorted(psutil.Process().cpu_affinity() or [])
    except (AttributeError, OSError, psutil.Error):
        return list(range(psutil.cpu_count() or 1))


def affinity_cpus() -> int:
    """How many CPUs are in this process's affinity mask (:func:`affinity`)."""
    return len(affinity())


def effective_cores(quota: float | None = None, cpus: int | None = None) -> float:
    """min(affinity CPUs, cgroup quota) — the cores' worth of time this process can use."""
    cpus = affinity_cpus() if cpus is None else cpus
    return float(cpus) if quota is None else min(float(cpus), quota)


def cpus_seen() -> str:
    """The CPUs a run may use, as text: the affinity mask's CPUs (``taskset``, a container's
    cpuset) and the CPU quota in cores (``None``: no limit).  A run's all-cores figures are
    measured on these (the probe cache's key holds them: a run under ``taskset -c 0`` does not
    read figures measured on every CPU)."""
    return f"cpus={affinity()} quota={cgroup_cpu_quota()}"
