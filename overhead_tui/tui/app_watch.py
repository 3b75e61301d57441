"""Watching a scenario file from the app (``W``, or ``overhead-tui watch FILE.py --app``): the
same ``engine.watch.WatchSession`` as the command, driven in a thread worker.

The worker measures the file, hands the Watch screen the save's lines, then waits for the
next save through the OS's file events (``watchfiles``); it posts nothing while a save is
measured, so the app sleeps while samples are timed.  Leaving the screen, ``q`` and Ctrl-C
stop it (the running worker is killed; every finished save stays in the history file).
"""

from __future__ import annotations

from pathlib import Path

from textual import work

from overhead_tui.engine.watch import WatchSession, default_watch_runs
from overhead_tui.present.watch_text import save_lines
from overhead_tui.tui.app_state import AppState
from overhead_tui.tui.screens.watch import WatchFileDialog, WatchScreen


class WatchActions(AppState):
    """The app's watch (``OverheadApp`` is one: it uses the run settings and the app's
    ``runner_factory``; ``self.watching`` is the running watch or None)."""

    """Where each measurement's run folder goes (None: ``engine.watch.default_watch_runs``)."""

    def action_watch(self) -> None:
        """Ask for a scenario file, then watch it (measured again on each save)."""
        if self._busy():
            return
        self.push_screen(WatchFileDialog(), self.start_watch)

    def _busy(self) -> bool:
        if self.ladder.running or self.sweep is not None or self.watching is not None:
            self.notify("Stop or wait for the current run first (a watch measures too).")
            return True
        return False

    def start_watch(self, path: Path | None) -> None:
        """Watch ``path`` (checked by the dialog or the command) on the Watch screen."""
        if path is None or self._busy():
            return
        size = f"n = {self.settings.size}" if self.settings.size else "its default n"
        screen = WatchScreen(path, f"{size}, {self.settings.dtype}")
        session = WatchSession(
            path, self.settings, self.watch_runs or default_watch_runs(), self.runner_factory
        )
        self.watching = session
        self.push_screen(screen, lambda _: self.stop_watch())
        self._drive_watch(session, screen)

    def watch_kept(self) -> str:
        """Where the watch keeps every save, and how to export a session."""
        from overhead_tui.engine.watch import history_dir

        return (
            f"Every save is kept in the watch history in {history_dir()}; "
            "`overhead-tui watch FILE.py --json PATH --markdown PATH` exports a session."
        )

    def stop_watch(self) -> None:
        """Stop the watch: the measuring worker is killed, the wait for a save ends."""
        if self.watching is not None:
            self.watching.cancel()
            self.watching = None

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def _drive_watch(self, session: WatchSession, screen: WatchScreen) -> None:
        """Measure, show, wait for a save; again until stopped."""
        while not session.done:
            self.call_from_thread(screen.measuring)
            saved = session.measure()
            if saved is None:
                return  # stopped while measuring
            lines = save_lines(saved, session.path.name, session.history, session.ladder)
            if saved.history_error:
                lines.append(saved.history_error)
            self.call_from_thread(screen.show, lines)
            self.call_from_thread(screen.waiting)
            if not session.wait_for_save():
                return
