"""The home screen: the ladder, filling in live, with run progress and the machine.

It watches the app's reactive ``ladder`` (a :class:`~overhead_tui.present.live.LiveLadder`) and
redraws what each change names (:attr:`~overhead_tui.present.live.LiveLadder.changed`): one
row and the progress line while a scenario runs, everything when a new plan or the run's end
arrives.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, ProgressBar, Static

from overhead_tui.analysis.span import span as run_span
from overhead_tui.present.format import (
    BUILDING_NOTE,
    build_progress,
    machine_line,
    probe_progress,
)
from overhead_tui.present.ladder_rows import (
    below_dense_note,
    dense_reference_note,
)
from overhead_tui.present.live import LiveLadder, doubt_note, run_end_text
from overhead_tui.present.span_text import span_text
from overhead_tui.tui.screens.base import BaseScreen
from overhead_tui.tui.widgets.ladder_table import LadderTable
from overhead_tui.tui.widgets.layer_bar import LayerLegend

TICK_S = 0.1
"""Seconds between spinner frames while a worker compiles, validates or counts."""


class LadderScreen(BaseScreen):
    """One row per scenario in rung order; ``enter`` drills into the selected one.

    Args:
        ladder: the state to draw; afterwards the app's ``ladder`` attribute, watched.
        clock: seconds, for the elapsed time (the app's clock).
    """

    CSS_PATH = "ladder.tcss"

    class ScenarioChosen(Message):
        """The user picked a scenario to drill into."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, ladder: LiveLadder, clock: Callable[[], float]) -> None:
        super().__init__()
        self.ladder = ladder
        self.clock = clock
        self._was_quiet = False
        self._activity: str | None = None

    def compose_body(self) -> ComposeResult:
        yield Static(id="machine")
        yield Static(id="span")
        with Horizontal(id="run-status"):
            yield ProgressBar(total=100, show_eta=False, id="progress")
            yield Static(id="elapsed")
            yield Static(id="current")
        yield LadderTable(id="ladder")
        yield LayerLegend(id="legend")
        yield Static(id="notes")

    def on_mount(self) -> None:
        self.update_all()
        # The spinner and the elapsed time: ticking only while a run is live, and paused
        # while something is measured (``quiet``); a saved run's screen never wakes up.
        self._ticker = self.set_interval(TICK_S, self._tick, pause=not self._ticking)
        self.query_one(LadderTable).focus()
        self.watch(self.app, "ladder", self._ladder_changed, init=False)

    def _ladder_changed(self, ladder: LiveLadder) -> None:
        """The app's ladder changed (an engine event, a new plan, a profile): redraw the row
        it names, or everything once the run as a whole changed and nothing runs."""
        if not self.query(LadderTable):
            return  # the screen is closing: its widgets are going
        self.ladder = ladder
        if self._ticking:
            self._ticker.resume()
        else:  # the spinner and elapsed time stop inside a timed window and after the run
            self._ticker.pause()
        self.update_scenario(ladder.changed)
        if ladder.changed is None and not ladder.running:  # a new plan or the run's end
            self.update_all()

    def on_resize(self) -> None:
        self._layout_table()
        self.call_after_refresh(self._refocus)

    def _refocus(self) -> None:
        """Hiding the table below the minimum size drops focus; take it back afterwards."""
        table = self.query_one(LadderTable)
        if self.focused is None and table.display:
            table.focus()

    def _layout_table(self) -> None:
        table = self.query_one(LadderTable)
        if table.set_width(self.size.width):
            table.rebuild(self.ladder)

    def update_all(self) -> None:
        """Redraw everything from the ladder (a new run, a finished run, a resize)."""
        table = self.query_one(LadderTable)
        self._layout_table()
        table.rebuild(self.ladder)
        self._update_status()

    def update_scenario(self, name: str | None) -> None:
        """Redraw after one scenario changed (bars rescale when a result lands).

        While the ladder is ``quiet`` (a rung's samples or a probe are being timed) the
        spinner's timer is paused; the event that opens a sample window paints nothing (the
        row was painted before the samples began), and the app holds back the later ones until
        the window closes (``live.quiet_events``).
        """
        quiet, entering = self.ladder.quiet, self.ladder.quiet and not self._was_quiet
        self._was_quiet = quiet
        if quiet:
            self._ticker.pause()
        else:
            self._ticker.resume()
        table = self.query_one(LadderTable)
        probes_begin = entering and self.ladder.probe is not None  # the notes say what they are
        if entering and not probes_begin:
            return  # the row already reads "running 0/N" (painted before the samples began)
        if quiet and not probes_begin:
            current = self.ladder.current
            table.refresh_rows(self.ladder, [current.result.name] if current else [])
            self._update_progress()
            return
        row = self.ladder.rows.get(name) if name else None
        if row is not None and row.active:  # a phase changed: that row and the progress line
            table.refresh_rows(self.ladder, [row.result.name])
            self._update_progress()
            return
        table.refresh_rows(self.ladder)  # a result landed (bars rescale) or the run changed
        self._update_status()

    def _update_status(self) -> None:
        ladder = self.ladder
        self.query_one("#machine", Static).update(machine_line(ladder.summary.machine))
        span = None if ladder.running else span_text(run_span(ladder.summary))
        self.query_one("#span", Static).update(span or "")
        self.query_one("#span", Static).set_class(span is None, "-empty")
        self._update_progress()
        self.query_one("#notes", Static).update(_notes(ladder))
        has_layers = any(r.result.breakdown for r in ladder.rows.values())
        # a class, not ``display``: an inline style would beat the "terminal too small" rule
        self.query_one("#legend", LayerLegend).set_class(not has_layers, "-no-layers")

    def show_activity(self, text: str | None) -> None:
        """What runs instead of a ladder (a size sweep), on the status line in place of the
        last run's end; None when it is over.  The bar then shows no run's progress."""
        self._activity = text
        self._update_progress()

    def _update_progress(self) -> None:
        """The progress bar, what runs now, and the elapsed time."""
        ladder = self.ladder
        bar = self.query_one(ProgressBar)
        activity = self._activity
        bar.update(progress=0 if activity else round(ladder.fraction_done * 100))
        current = ladder.current
        if activity:
            text = activity
        elif current is not None:
            text = f"{current.result.name}: {current.state}"
        elif ladder.running and ladder.probe is not None:
            text = probe_progress(ladder.probe)
        elif ladder.running and ladder.build is not None:
            text = build_progress(ladder.build)
        elif ladder.running:
            text = "starting"
        elif ladder.cancelled or ladder.summary.finished:
            text = run_end_text(ladder.summary, ladder.cancelled)
        else:
            text = "press r to run"
        self.query_one("#current", Static).update(text)
        self._update_elapsed()

    def _update_elapsed(self) -> None:
        started_at = self.ladder.started_at
        seconds: float | None
        if self.ladder.running and started_at is not None:
            seconds = self.clock() - started_at
        else:
            seconds = self.ladder.summary.wall_s
        text = f"{seconds:5.1f} s" if seconds is not None else "  —  "
        self.query_one("#elapsed", Static).update(text)

    @property
    def _ticking(self) -> bool:
        """Whether the spinner and the elapsed time move: a run is live and nothing is timed."""
        return self.ladder.running and not self.ladder.quiet

    def _tick(self) -> None:
        if not self._ticking:  # a rung is timed, or the run ended: no wake-ups
            self._ticker.pause()
            return
        table = self.query_one(LadderTable)
        table.frame += 1
        current = self.ladder.current
        if current is not None:
            table.refresh_rows(self.ladder, [current.result.name])
        self._update_elapsed()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.post_message(self.ScenarioChosen(str(event.row_key.value)))

    @property
    def selected_name(self) -> str | None:
        """The scenario under the cursor."""
        return self.query_one(LadderTable).selected_name


def _notes(ladder: LiveLadder) -> str:
    """One line under the table: the dense kernel and the first problem, if any."""
    dense = ladder.summary.dense
    parts = []
    if ladder.running and ladder.probe is not None:
        parts.append("measuring this machine's unit costs once (cached for later runs)")
    elif ladder.running and ladder.build is not None:
        parts.append(BUILDING_NOTE)
    if dense is not None:
        parts.append(f"dense kernel: {dense.name}, n={dense.n}")
        if not ladder.running and (faster := below_dense_note(ladder.summary)):
            parts.append(faster)
    elif not ladder.running or not any(r.result.dense_kernel for r in ladder.rows.values()):
        parts.append(dense_reference_note(ladder.summary) or "")
    problems = [
        r.result
        for r in ladder.rows.values()
        if r.state in ("invalid", "impossible", "error", "timeout", "crashed")
    ]
    if problems:
        first = problems[0]
        parts.append(f"{len(problems)} failed — {first.name}: {first.status}")
    if doubts := doubt_note(r.result for r in ladder.rows.values() if r.state == "ok"):
        parts.append(doubts)
    return " · ".join(parts)
