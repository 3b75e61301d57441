"""The live state of a ladder run, built from engine events (no UI imports).

The app holds one :class:`LiveLadder` in a reactive attribute; engine events go in through
:meth:`LiveLadder.apply`, which notes what they changed (:attr:`LiveLadder.changed`), and the
screens watching it redraw only that.  States of a row: ``queued``, ``starting``,
``compiling``, ``validating``, ``running``, ``counting`` while it runs, then the final status
of its result (``ok``, ``invalid``, ``impossible``, ``error``, ``timeout``, ``crashed``,
``skipped``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from overhead_tui.engine.events import (
    BuildStarted,
    Event,
    ProbeStarted,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.engine.stats import unstable_timing
from overhead_tui.summary.records import RunSummary, ScenarioResult

ACTIVE_STATES = frozenset({"starting", "compiling", "validating", "running", "counting"})
"""States of a scenario whose worker is alive."""


@dataclass
class LadderRow:
    """One scenario's live state."""

    result: ScenarioResult
    state: str = "queued"
    samples_done: int = 0
    samples_total: int = 0

    @property
    def active(self) -> bool:
        """True while the scenario's worker runs."""
        return self.state in ACTIVE_STATES


class LiveLadder:
    """Rows by scenario name, in rung order, plus run-level progress."""

    def __init__(self, summary: RunSummary, finished: bool = False) -> None:
        self.summary = summary
        self.running = False
        self.cancelled = False
        self.rows: dict[str, LadderRow] = {}
        self.probe: ProbeStarted | None = None
        """The probe being measured, while probes are measured before the scenarios."""
        self.build: BuildStarted | None = None
        """The module last started building, while the run builds before anything is timed
        (nothing is timed then: views may repaint)."""
        self.timed_window = False
        """True while a worker times its samples: views must not compete for the CPU."""
        self.started_at: float | None = None
        """When the app started the current run (s, on the app's clock), while it runs."""
        self.changed: str | None = None
        """The scenario the last update changed, or None when it changed the run as a whole
        (a new plan, a run starting or ending, a probe): views redraw that row only."""
        self.reset(summary, finished)

    @property
    def quiet(self) -> bool:
        """True while something is being measured (a rung's samples or a probe): views
        repaint only on events then, never on a timer."""
        return self.running and (self.timed_window or self.probe is not None)

    def reset(self, summary: RunSummary, finished: bool) -> None:
        """Show ``summary``: as final results when ``finished``, else as a queue to run."""
        self.summary = summary
        self.changed = None
        self.cancelled = finished and not summary.finished  # a saved, interrupted run
        self.rows = {
            r.name: LadderRow(r, state=r.status if finished else "queued")
            for r in summary.scenarios
        }

    def start(self, now: float) -> None:
        """A run was asked for at ``now`` (s): running from now on, before its first event."""
        self.running, self.started_at, self.changed = True, now, None

    def apply(self, event: Event) -> str | None:
        """Record one engine event; return (and keep in :attr:`changed`) the name of the
        scenario it changed, if any."""
        self.changed = self._apply(event)
        return self.changed

    def land(self, result: ScenarioResult) -> None:
        """A newer ``result`` of one of the scenarios (e.g. with a profile added after the
        run): it replaces the old one in its row and in the summary."""
        self.rows[result.name].result = result
        # by name: events carry copies, so the summary's record is rarely the row's object
        self.summary.scenarios = [
            result if s.name == result.name else s for s in self.summary.scenarios
        ]
        self.changed = result.name

    def _apply(self, event: Event) -> str | None:
        if isinstance(event, RunStarted):
            self.reset(event.summary, finished=False)
            self.running, self.cancelled = True, False
            self.probe, self.build, self.timed_window = None, None, False
            return None
        if isinstance(event, BuildStarted):
            self.build = event
            return None
        if isinstance(event, ProbeStarted):
            self.probe, self.build = event, None
            return None
        if isinstance(event, RunFinished):
            self._take(event.summary)
            self.running, self.cancelled = False, event.cancelled
            self.probe, self.build, self.timed_window = None, None, False
            for row in self.rows.values():
                if row.state == "queued" or row.active:
                    row.state = row.result.status
            return None
        if isinstance(event, ScenarioStarted):
            self.probe = self.build = None  # both done once the first scenario starts
            row = self.rows[event.name]
            row.state, row.samples_done = "starting", 0
            return event.name
        if isinstance(event, ScenarioProgress):
            row = self.rows[event.name]
            row.state = event.phase
            row.samples_done, row.samples_total = event.samples_done, event.samples_total
            self.timed_window = event.timed_window
            return event.name
        if isinstance(event, ScenarioFinished):
            self.timed_window = False
            if event.summary is not None:  # every rung's derived figures may have moved
                self._take(event.summary)
            row = self.rows[event.result.name]
            row.result, row.state = event.result, event.result.status
            return event.result.name
        return None

    def _take(self, summary: RunSummary) -> None:
        """Make ``summary`` the run's record, its results the rows' own: what a view later
        lands on a row (a profile) must land in the summary that is saved and exported."""
        self.summary = summary
        for result in summary.scenarios:
            if result.name in self.rows:
                self.rows[result.name].result = result

    @property
    def fraction_done(self) -> float:
        """Progress of the whole run in [0, 1].

        A running scenario counts by samples taken, its first call as one more sample.
        """
        if not self.rows:
            return 1.0
        done = 0.0
        for row in self.rows.values():
            if row.active:
                done += row.samples_done / (row.samples_total + 1) if row.samples_total else 0.0
            elif row.state != "queued":
                done += 1.0
        return done / len(self.rows)

    @property
    def current(self) -> LadderRow | None:
        """The row whose worker is running, if any."""
        return next((r for r in self.rows.values() if r.active), None)

    def ordered(self) -> list[LadderRow]:
        """Rows in rung order."""
        return sorted(self.rows.values(), key=lambda r: (r.result.rung, r.result.name))


def quiet_events(events: Iterable[Event]) -> Iterator[Event]:
    """Pass ``events`` on, holding back progress inside a timed window.

    Inside a worker's timed window (``ScenarioProgress.timed_window``) only the first progress
    event is passed on (it tells the view to go quiet: its timers pause, it paints nothing);
    the others are held back until the window closes, so the view is not woken at all while
    samples are timed.  Every other event passes.  A progress event is a full snapshot of its
    scenario's state, so the ones held back carry nothing the next one lacks.
    """
    in_window = False
    for event in events:
        if isinstance(event, ScenarioProgress) and event.timed_window:
            if in_window:
                continue
            in_window = True
        else:
            in_window = False
        yield event


def doubt_note(results: Iterable[ScenarioResult], shown: int = 3) -> str:
    """The footer's note on the ok rungs flagged ``!``, by cause: ``"! unstable timing: a ·
    ! timed on a busy machine: b, c, d +2"`` (at most ``shown`` names a cause; "" when none).

    A rung with both kinds of warning counts as unstable (the stronger doubt)."""
    unstable: list[str] = []
    busy: list[str] = []
    for result in results:
        if result.status != "ok" or not result.warnings:
            continue
        doubt = unstable if any(map(unstable_timing, result.warnings)) else busy
        doubt.append(result.name)
    parts = []
    for label, names in (("unstable timing", unstable), ("timed on a busy machine", busy)):
        if names:
            more = f" +{len(names) - shown}" if len(names) > shown else ""
            parts.append(f"! {label}: {', '.join(names[:shown])}{more}")
    return " · ".join(parts)


def run_end_text(summary: RunSummary, cancelled: bool) -> str:
    """How a run ended, its counts and where it is kept: ``"done: 18 ok, 2 failed · saved in
    DIR"`` or ``"stopped: 3 ok, 0 failed, the finished results kept in DIR"``."""
    statuses = [s.status for s in summary.scenarios]
    ok = statuses.count("ok")
    failed = len([s for s in statuses if s not in ("ok", "skipped")])
    where = f" in {summary.run_dir}" if summary.run_dir else ""
    if cancelled:
        return f"stopped: {ok} ok, {failed} failed, the finished results kept{where}"
    return f"done: {ok} ok, {failed} failed" + (f" · saved{where}" if where else "")
