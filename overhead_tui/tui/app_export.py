"""Exporting from the app (``e``): the run's summary as ``summary.json``, ``report.md`` and
``ladder.csv`` into a folder the user picks (the run's own by default).  Files of the user's
are never overwritten: a folder other than the run's that holds one of them is refused.  On
the Watch screen there is no ladder to export: ``e`` says where the watch keeps every save.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from overhead_tui.errors import UsageError
from overhead_tui.export import export
from overhead_tui.tui.app_state import AppState
from overhead_tui.tui.screens.modals import ExportScreen

EXPORT_FILES: tuple[tuple[str, str], ...] = (
    ("summary.json", "json"),
    ("report.md", "markdown"),
    ("ladder.csv", "csv"),
)
"""Files written by the export action: (file name, format)."""


class ExportActions(AppState):
    """The app's export (``OverheadApp`` is one: ``ladder`` is what it shows, ``watching``
    its watch and ``watch_kept`` where that keeps its saves)."""

    watch_kept: Callable[[], str]

    def action_export(self) -> None:
        """Ask for a directory and export the summary there (on the Watch screen: say where
        the watch keeps every save)."""
        if self.watching is not None:
            self.notify(self.watch_kept(), title="Watching", timeout=10)
            return
        if self.ladder.running:
            self.notify("The run is still going: the export has the results so far.")
        run_dir = self.ladder.summary.run_dir
        default = Path(run_dir) if run_dir else Path.cwd()
        self.push_screen(ExportScreen(default), self._export_to)

    def _export_to(self, directory: Path | None) -> None:
        if directory is None:
            return
        own = Path(self.ladder.summary.run_dir or "") == directory  # the run's files: rewritten
        taken = [name for name, _ in EXPORT_FILES if (directory / name).exists()]
        if taken and not own:
            self.notify(
                f"{', '.join(taken)} exist in {directory}; fix: choose another folder (nothing "
                "was written)",
                title="Export refused",
                severity="error",
                timeout=10,
            )
            return
        try:
            paths = [
                export(self.ladder.summary, directory / name, fmt) for name, fmt in EXPORT_FILES
            ]
        except UsageError as exc:
            self.notify(str(exc), title="Export failed", severity="error", timeout=10)
            return
        self.notify("\n".join(str(p) for p in paths), title="Exported", timeout=10)
