"""A run without workers: replays a recorded summary as engine events, for tests about the UI.

Pass ``OverheadApp(runner_factory=Replay(summary))``; each run the app starts plays the
recorded scenarios it selected (started, a timed-window progress event per sample, finished)
and ends with ``RunFinished``.  Select scenarios of the built-in folder (always discovered)
that the recording has, e.g. ``python_naive`` and ``numpy_matmul`` of ``RECORDED_SUMMARY``.
``hold`` stops the replay before a given scenario finishes until the test releases it, so a
test can look at the app in the middle of a run.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterator
from pathlib import Path

from overhead_tui.engine.events import (
    Event,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.engine.results import new_result
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import RunSummary, Settings

HOLD_LIMIT_S = 60.0
"""A held replay gives up after this long (only a broken test waits that long)."""


class ReplayRun:
    """One replayed run of ``recorded`` (its scenarios declared by ``specs``) into ``run_dir``
    (the app's RunSource)."""

    def __init__(
        self,
        recorded: RunSummary,
        specs: list[ScenarioSpec],
        run_dir: Path,
        hold: str | None,
        release: threading.Event,
    ) -> None:
        self.recorded = recorded
        self.specs = {spec.name: spec for spec in specs}
        self.run_dir = run_dir
        self.hold = hold
        self.release = release
        self.held = threading.Event()
        """Set once the replay waits before finishing the ``hold`` scenario."""
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()
        self.release.set()

    def events(self) -> Iterator[Event]:
        planned = copy.deepcopy(self.recorded)
        planned.run_dir, planned.finished = str(self.run_dir), False
        # each scenario as the runner lists it before running it (no measurements)
        planned.scenarios = [
            new_result(self.specs[r.name], r.n, r.dtype, r.m, r.k) for r in self.recorded.scenarios
        ]
        yield RunStarted(planned)
        final = copy.deepcopy(self.recorded)
        final.run_dir = str(self.run_dir)
        total = len(self.recorded.scenarios)
        finished: list[str] = []
        for index, result in enumerate(self.recorded.scenarios):
            if self._cancel.is_set():
                break
            yield ScenarioStarted(result.name, index, total)
            samples = len(result.samples_s) or 3
            for done in range(1, samples + 1):
                yield ScenarioProgress(result.name, "running", done, samples, timed_window=True)
            if result.name == self.hold:
                self.held.set()
                self.release.wait(HOLD_LIMIT_S)
            yield ScenarioFinished(result, index, total)
            finished.append(result.name)
        final.finished = not self._cancel.is_set()
        if not final.finished:  # as the runner's: the scenarios not reached stay as planned
            done = set(finished)
            final.scenarios = [
                r if r.name in done else p
                for r, p in zip(final.scenarios, planned.scenarios, strict=True)
            ]
        yield RunFinished(final, cancelled=self._cancel.is_set())


class Replay:
    """A ``runner_factory`` for :class:`~overhead_tui.tui.app.OverheadApp` that replays
    ``recorded`` on every run; ``runs`` lists each run with the settings it was started with.

    Args:
        recorded: the summary whose scenarios are replayed, in its order.
        hold: the name of a scenario to stop before (until :meth:`release`), or None.
    """

    def __init__(self, recorded: RunSummary, hold: str | None = None) -> None:
        self.recorded = recorded
        self.hold = hold
        self._release = threading.Event()
        self.runs: list[tuple[ReplayRun, Settings]] = []

    def __call__(self, specs: list[ScenarioSpec], settings: Settings, run_dir: Path) -> ReplayRun:
        names = {spec.name for spec in specs}  # the app's selection, as a Runner would run
        chosen = copy.copy(self.recorded)
        chosen.scenarios = [r for r in self.recorded.scenarios if r.name in names]
        run = ReplayRun(chosen, specs, run_dir, self.hold, self._release)
        self.runs.append((run, settings))
        return run

    def release(self) -> None:
        """Let a held replay go on."""
        self._release.set()
