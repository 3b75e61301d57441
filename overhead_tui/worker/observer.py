"""The observing process (the app or the CLI) measured while a worker times its samples.

The worker announces its timed window (``timing_started`` … ``timing_ended``); the runner notes
this process's own CPU time at both ends, so every result says how much the observer used.
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


class TimedWindow:
    """Tracks a rung's timed windows and this process's CPU time inside them.

    ``observer_cpu_s`` is the CPU time (s) the parent used between each worker's
    ``timing_started`` and ``timing_ended`` (summed over a rung's workers);
    ``observer_fraction`` that over the windows' wall time, as a fraction of one CPU. Both
    None until a window closed.  ``observer_switches`` counts this process's context switches
    inside the windows (its wake-ups: timers, repaints, reading the worker's pipe).
    """

    def __init__(self) -> None:
        self.open = False
        self._began: tuple[float, float] | None = None
        self._wall_s = 0.0
        self.observer_cpu_s: float | None = None
        self.observer_fraction: float | None = None
        self.observer_switches: int | None = None
        self._switches = 0

    def see(self, kind: object, now: float) -> None:
        """Note a worker event ``kind`` seen at wall time ``now`` (s)."""
        if kind == "timing_started" and not self.open:
            self.open, self._began = True, (now, own_cpu_s())
            self._switches = own_switches()
        elif kind == "timing_ended" and self.open and self._began is not None:
            self._wall_s += now - self._began[0]
            used = max(0.0, own_cpu_s() - self._began[1])
            self.observer_cpu_s = (self.observer_cpu_s or 0.0) + used
            switched = max(0, own_switches() - self._switches)
            self.observer_switches = (self.observer_switches or 0) + switched
            self.observer_fraction = (
                self.observer_cpu_s / self._wall_s if self._wall_s > 0 else None
            )
            self.open = False
