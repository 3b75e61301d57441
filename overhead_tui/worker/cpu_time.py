"""CPU time of this process and of its threads: what a worker's samples record of the cores
they got (``own_cpu_s``, per-thread scheduler statistics), and what the parent records of
itself while a worker is timed (``engine.observer``).  Standard library only.
"""

from __future__ import annotations


def own_cpu_s(children: bool = False) -> float:
    """User + system CPU seconds this process (all its threads) has used so far; with
    ``children``, also the child processes it has waited for (probe workers, a compiler)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    if children:
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
        total += reaped.ru_utime + reaped.ru_stime
    return total


def thread_schedstat() -> dict[int, tuple[int, int]]:
    """Each thread of this process: (ns on a CPU, ns runnable but waiting for one) so far,
    from ``/proc/self/task/TID/schedstat`` (Linux's scheduler statistics: its first two
    fields); empty where that cannot be read."""
    import os

    found: dict[int, tuple[int, int]] = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as stat:
                run, wait = stat.read().split()[:2]
            found[int(tid)] = (int(run), int(wait))
        except (OSError, ValueError):
            continue  # a thread that ended in between
    return found


BUSY_THREAD = 0.05
"""The share of a sample's wall time a thread must have run to count as one of the kernel's
threads (the others are idle helpers: a pipe reader, a sleeping pool)."""


def straggler_cores(
    before: dict[int, tuple[int, int]], after: dict[int, tuple[int, int]], wall_s: float
) -> float | None:
    """The cores an evenly split parallel kernel got while timed: its busy threads (those that
    ran :data:`BUSY_THREAD` of ``wall_s`` or more) times the smallest share of its runnable
    time any of them spent on a CPU (run / (run + wait on a run queue)).  The slowest thread
    sets such a kernel's time, and a thread that spins at a barrier still counts as running,
    so the process's CPU time over wall time overstates it beside a busy neighbour.  None
    without scheduler statistics or a busy thread."""
    shares = []
    for tid, (run, wait) in after.items():
        if tid not in before:
            continue
        ran, waited = run - before[tid][0], wait - before[tid][1]
        if ran >= BUSY_THREAD * wall_s * 1e9:
            shares.append(ran / (ran + waited))
    return len(shares) * min(shares) if shares else None


def own_switches() -> int:
    """Context switches of this process so far (voluntary + involuntary, all threads): each
    one is a wake-up that may take a core from the worker's threads."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw + usage.ru_nivcsw
