"""The observing process (the app or the CLI) measured while a worker times its samples.

The worker announces its timed window (``timing_started`` … ``timing_ended``); the runner notes
this process's own CPU time at both ends, so every result says how much the observer used.
"""

from __future__ import annotations

from overhead_tui.worker.cpu_time import own_cpu_s, own_switches


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
