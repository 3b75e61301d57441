"""The state the app's parts share, declared once with its types: the app (``tui/app.py``)
and each of its parts (``tui/app_*.py``: stopping, sweeps, other interpreters, watching,
export) read and set these, and ``OverheadApp.__init__`` gives them their values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from textual.app import App

if TYPE_CHECKING:
    from overhead_tui.engine.events import Event
    from overhead_tui.engine.spawn import Cancel
    from overhead_tui.engine.watch import WatchSession
    from overhead_tui.plugins.scenarios import ScenarioSpec
    from overhead_tui.present.live import LiveLadder
    from overhead_tui.summary.interpreters import InterpretersSummary
    from overhead_tui.summary.records import Settings
    from overhead_tui.sweeps.sizes import SizeSweep


class RunSource(Protocol):
    """What the app needs of a run: its events, and a way to stop it (see ``Runner``)."""

    def events(self) -> Iterator[Event]:
        """The run's events, in order; called once, in a thread worker."""
        ...

    def cancel(self) -> None:
        """Stop the run soon (from another thread); ``events`` then ends with RunFinished."""
        ...

    @property
    def run_dir(self) -> Path:
        """The run's folder: its ``summary.json``, ``log.jsonl`` and the workers' logs."""
        ...


RunnerFactory = Callable[["list[ScenarioSpec]", "Settings", Path], RunSource]
"""Makes the run of (specs, settings, run directory); the app's default is a real Runner."""


class AppState(App[None]):
    """The app's shared state (module docstring); the parts subclass it, never re-declare."""

    settings: Settings
    """The settings of the next run (the settings screen edits them)."""
    ladder: LiveLadder
    """The ladder shown (a reactive on the app)."""
    runs_dir: Path | None
    """Where new run folders go (None: the default)."""
    all_specs: list[ScenarioSpec]
    """Every scenario found."""
    runner_factory: RunnerFactory
    runner: RunSource | None = None
    """The run in progress, or None."""
    sweep: SizeSweep | None = None
    """The size sweep in progress, or None."""
    interpreters: InterpretersSummary | None = None
    """The other interpreters' combined summary, once made."""
    others: Cancel | None = None
    """Stops the other interpreters' runs while they run, else None."""
    watching: WatchSession | None = None
    """The watched file's session, while watching."""
    watch_runs: Path | None = None
    """Where watched saves' runs go."""
    farewell: str | None = None
    """The line printed after the app exits (where things were saved)."""
