"""One watched scenario file (``overhead-tui watch FILE.py``, and the app's Watch screen):
measured, then measured again each time it is saved, each measurement kept in a history.

The file is watched through the OS's file events (inotify, via ``watchfiles``), never polled,
and only between measurements: nothing of the watch wakes while a rung is timed.  The views
(the command's lines, the app's screen) say what a :class:`SaveMeasured` changed
(``present/watch_text.py``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Protocol

from overhead_tui.analysis.watch import Version, version_of
from overhead_tui.engine.events import Event, RunFinished
from overhead_tui.engine.run_dir import default_runs_dir, latest_ladder, new_run_dir
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import ScenarioSpec, read_spec
from overhead_tui.summary.records import RunSummary, ScenarioResult, Settings

QUIET_MS = 300
"""A save is measured once the folder has been quiet this long (ms): saves less than this
apart (an editor's write, rename and touch; two quick saves) are measured once."""
DEBOUNCE_MS = 3000
"""The longest a stream of saves is gathered before it is measured (ms)."""
WATCH_STARTED_MS = 100
"""How soon the watch reports that it is in place (an empty set of changes)."""
KEEP_RUNS = 10
"""The run folders a watch keeps of its own measurements, newest first (the older ones are
removed as it goes; every save stays in the history file)."""


class WatchedRun(Protocol):
    """What a watch needs of one measurement's run (``Runner``, or a replay in tests)."""

    def events(self) -> Iterator[Event]: ...

    def cancel(self) -> None: ...


RunFactory = Callable[[list[ScenarioSpec], Settings, Path], WatchedRun]
"""Makes the run of (specs, settings, run directory): a :class:`Runner` by default."""


@dataclass(frozen=True)
class SaveMeasured:
    """One save of the watched file, handled: its scenario's name (the file's stem when it
    did not parse), its :class:`Version` (measured, or why not), and the last good version
    before it (None: the first)."""

    name: str
    version: Version
    last_good: Version | None
    history_error: str | None = None
    """Why the save could not be appended to the history file (None: it was)."""


def resolve_watched_file(path: Path) -> Path:
    """``path`` resolved, an existing ``.py`` file.

    Raises:
        UsageError: it is missing, a folder, or not a ``.py`` file.
    """
    if path.suffix != ".py":
        raise UsageError(f"{path} is not a .py file; fix: give a scenario file (overhead-tui new)")
    if not path.is_file():
        raise UsageError(f"{path} does not exist; fix: `overhead-tui new NAME` writes one")
    return path.resolve()


def watch_key(name: str, path: Path) -> str:
    """``NAME-<8 hex digits>``: scenario ``name`` in the file at ``path`` (two files with one
    scenario name, in two folders, keep two histories)."""
    digest = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:8]
    return f"{name}-{digest}"


def history_dir() -> Path:
    """Where the watch histories go: ``watch/`` under the user data dir."""
    return default_runs_dir().parent / "watch"


def history_path(key: str) -> Path:
    """The history of a watched file (its :func:`watch_key`): ``KEY.jsonl`` in
    :func:`history_dir`, one JSON line per save (``Version.to_json`` with the date, the file
    and the dtype)."""
    return history_dir() / f"{key}.jsonl"


def default_watch_runs() -> Path:
    """Where each measurement's run folder goes unless told: :func:`history_dir`, one folder
    per watched file."""
    return history_dir()


class WatchSession:
    """One watched file: :attr:`history` (every save handled, in order), the ladder it is
    placed on (the newest saved run with the dense kernel), and the run now measuring.

    Args:
        path: the scenario file (checked by :func:`resolve_watched_file`).
        settings: how to measure (size, dtype, samples …); ``scenarios`` is set to the file's.
        runs_parent: where each measurement's run folder goes (``KEY/<date>`` below it, KEY
            the file's :func:`watch_key`; the session keeps its newest :data:`KEEP_RUNS`).
        run_factory: makes each measurement's run (default: a :class:`Runner`).
        count: stop after this many saves handled (None: until stopped).
    """

    def __init__(
        self,
        path: Path,
        settings: Settings,
        runs_parent: Path,
        run_factory: RunFactory = Runner,
        count: int | None = None,
    ) -> None:
        self.path = path
        self.settings = settings
        self.runs_parent = runs_parent
        self.run_factory = run_factory
        self.count = count
        self.history: list[Version] = []
        self.stop = threading.Event()
        self.cancelled = False
        self.run: WatchedRun | None = None
        self.ladder: RunSummary | None = latest_ladder()
        self.measured_text: str | None = None
        self.run_dirs: list[Path] = []
        """The run folders this session made and kept, oldest first."""

    @property
    def done(self) -> bool:
        """True once stopped, or ``count`` saves were handled."""
        return self.stop.is_set() or (self.count is not None and len(self.history) >= self.count)

    def cancel(self) -> None:
        """Stop (from a signal handler or another thread): the measuring run, and the wait
        for a save."""
        self.cancelled = True
        self.stop.set()
        if self.run is not None:
            self.run.cancel()

    def last_good(self) -> Version | None:
        """The newest measured version (None: none yet)."""
        return next((v for v in reversed(self.history) if v.ok), None)

    def wait_for_save(self) -> bool:
        """Block until the file is saved with a change (its folder's file events, gathered
        until :data:`QUIET_MS` of quiet); False when stopped.  Called between measurements
        only, so nothing wakes while one is timed; a save made while the last one ran (before
        this watch began) is seen by comparing the file with what was measured, once the
        watch is in place."""
        import watchfiles

        target = str(self.path)
        placed = False
        for changes in watchfiles.watch(
            self.path.parent,
            debounce=DEBOUNCE_MS,
            step=QUIET_MS,
            stop_event=self.stop,
            raise_interrupt=False,
            recursive=False,
            rust_timeout=WATCH_STARTED_MS,
            yield_on_timeout=True,
        ):
            if not placed:  # the watch is in place: a save from before it is in the file
                placed = True
                if self._text() != self.measured_text:
                    return True
            saved = any(p == target and c != watchfiles.Change.deleted for c, p in changes)
            if saved and self._text() != self.measured_text:  # a save that changed nothing
                return True  # (a touch, a second write of the same text) is not measured
        return False

    def _text(self) -> str | None:
        """The file's text now (None when it cannot be read)."""
        try:
            return self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def measure(self) -> SaveMeasured | None:
        """Read the file (no measurement when it does not parse), measure it in a worker,
        keep it in the history; None when stopped while measuring."""
        when = datetime.now().strftime("%H:%M:%S")
        last = self.last_good()
        self.measured_text = self._text()
        try:
            spec = read_spec(self.path, fix="fix the file")
        except UsageError as exc:
            return self._keep(self.path.stem, Version(when, "not measured", str(exc)), last)
        result = self._run(spec)
        if result is None:
            return None
        return self._keep(spec.name, version_of(result, when), last)

    def _run(self, spec: ScenarioSpec) -> ScenarioResult | None:
        settings = replace(self.settings, scenarios=[spec.name])
        run_dir = new_run_dir(self.runs_parent / watch_key(spec.name, self.path))
        self.run_dirs.append(run_dir)
        for old in self.run_dirs[:-KEEP_RUNS]:
            shutil.rmtree(old, ignore_errors=True)
        del self.run_dirs[:-KEEP_RUNS]
        self.run = self.run_factory([spec], settings, run_dir)
        summary = None
        for event in self.run.events():
            if isinstance(event, RunFinished):
                summary = event.summary
        self.run = None
        if summary is None or self.cancelled:
            return None
        return summary.scenario(spec.name)

    def _keep(self, name: str, version: Version, last: Version | None) -> SaveMeasured:
        self.history.append(version)
        return SaveMeasured(name, version, last, self._append(name, version))

    def _append(self, name: str, version: Version) -> str | None:
        """Append ``version`` to :func:`history_path`; why it could not be (never fatal), or
        None."""
        path = history_path(watch_key(name, self.path))
        record = {
            "at": datetime.now().isoformat(timespec="seconds"),
            "file": str(self.path),
            "dtype": self.settings.dtype,
            **version.to_json(),
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
        except OSError as exc:
            return f"history not kept ({exc})"
        return None
