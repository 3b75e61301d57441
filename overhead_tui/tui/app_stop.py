"""Stopping what the app runs, and the line said once the terminal is back.

* ``q`` quits: the running worker (a run's, a sweep's, a profile's, the other Pythons') is
  stopped, its process group killed, and the app exits 0.
* Ctrl-C interrupts, as in every command: the key (the app's terminal is raw, so Ctrl-C reaches
  Textual as the ``ctrl+c`` key, not as SIGINT) and SIGINT, SIGTERM or SIGHUP sent to the
  process alike stop the same, and the app exits 130 (``errors.EXIT_INTERRUPTED``).

Either way a stopped run's finished rungs stay in its run folder, and :attr:`farewell
<StopActions.farewell>` says where: the command prints it on stderr once the app has given the
terminal back (``commands.common.run_app``).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from overhead_tui.engine.interrupts import STOP_SIGNALS
from overhead_tui.engine.spawn import Cancel
from overhead_tui.errors import EXIT_INTERRUPTED
from overhead_tui.tui.app_state import AppState

SignalHandler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None
"""What ``signal.getsignal`` returns: a function, ``SIG_DFL``/``SIG_IGN``, or None (a handler
not installed from Python)."""


class StopActions(AppState):
    """The app's ``q`` and Ctrl-C (``OverheadApp`` is one: ``runner``, ``sweep`` and ``others``
    are what it runs, None when nothing)."""

    """The running ladder (``tui.app.RunSource``), or the last one."""
    """The running watch (``engine.watch.WatchSession``), or None."""
    stop_interpreters: Callable[[], None]
    _profiling: Cancel | None = None
    _caught: tuple[tuple[signal.Signals, SignalHandler], ...] = ()
    """The stop signals the app handles, each with its handler from before the app."""
    """The line to print on stderr after the app exits (what was stopped and where what
    finished is kept), or None: nothing to say."""

    def stop_run(self) -> None:
        """Stop the running worker process (finished results stay saved), a run's or a
        sweep's."""
        if self.runner is not None:
            self.runner.cancel()
        if self.sweep is not None:
            self.sweep.cancel()
        if self.watching is not None:
            self.watching.cancel()
        self.stop_interpreters()

    def action_stop_run(self) -> None:
        """Stop the run (the palette's "Stop the run")."""
        self.stop_run()

    def stop_profiling(self) -> None:
        """Kill the running profiler's process group and skip the backends after it."""
        if self._profiling is not None:
            self._profiling.set()

    def kept(self) -> str | None:
        """Where what finished of the running work is kept, or None when nothing runs."""
        if self.ladder.running and self.runner is not None:
            folder = self.runner.run_dir
            return f"the finished rungs are kept in {folder} ({_open(folder)})"
        if self.sweep is not None:
            folder = self.sweep.run_dir
            return f"the finished points are kept in {folder} ({_open(folder)})"
        if self.watching is not None:
            from overhead_tui.engine.watch import history_dir

            folder = history_dir()
            return f"every finished save is kept in the watch history in {folder}"
        if self.others is not None:
            from overhead_tui.engine.run_dir import default_runs_dir

            folder = self.runs_dir or default_runs_dir()
            return f"the other Pythons' finished runs are kept in {folder}"
        return None

    async def action_quit(self) -> None:
        """Stop the running worker and profiler (their process groups are killed) and exit."""
        if self.return_code is not None:
            return  # already on its way out
        kept = self.kept()
        what = "stopped watching" if self.watching is not None else "quit before the run ended"
        self.farewell = f"overhead-tui: {what}; {kept}" if kept else None
        self.stop_run()
        self.stop_profiling()
        self.exit()

    def action_interrupt(self) -> None:
        """Ctrl-C: stop as ``q`` does, then exit 130 saying where what finished is kept."""
        if self.return_code is not None:
            return  # already on its way out (a second Ctrl-C, or q then Ctrl-C)
        kept = self.kept()
        self.farewell = "overhead-tui: interrupted" + (f"; {kept}" if kept else "")
        self.stop_run()
        self.stop_profiling()
        self.exit(return_code=EXIT_INTERRUPTED)

    def catch_stop_signals(self) -> None:
        """From now until the app unmounts, SIGINT, SIGTERM and SIGHUP are Ctrl-C
        (:meth:`action_interrupt`, called in the app's event loop): left alone, SIGTERM and
        SIGHUP end the process at once, the terminal still raw and the workers (each in its
        own session) still running, and SIGINT raises wherever the loop is.  Not in a headless
        app (tests): there the signals are the test process's."""
        if self.is_headless:
            return
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            previous = signal.getsignal(sig)
            try:
                loop.add_signal_handler(sig, self.action_interrupt)
            except (ValueError, RuntimeError):  # not the main thread: the signals are not ours
                return
            self._caught += ((sig, previous),)

    def on_unmount(self) -> None:
        self.stop_run()
        self.stop_profiling()
        loop = asyncio.get_running_loop()
        for sig, previous in self._caught:  # back to what they were before the app
            loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_DFL if previous is None else previous)
        self._caught = ()


def _open(folder: Path | str) -> str:
    """How to look at the saved run in ``folder``."""
    return f"open it with `overhead-tui open {folder}`"
