"""The CLI's progress on stderr: a live line on a terminal (redrawn only when an event
arrives, quiet while a rung is timed), one permanent line per finished scenario always."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from overhead_tui.engine.events import (
    BuildStarted,
    Event,
    ProbeStarted,
    RunFinished,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.present.error_text import headline
from overhead_tui.present.format import BUILDING_NOTE, build_progress, probe_progress
from overhead_tui.summary.units import fmt_gflops, fmt_seconds
from overhead_tui.summary.vocabulary import rate_unit
from overhead_tui.sweeps.budgeted import PointMeasured, PointStarting, ScenarioStopped

if TYPE_CHECKING:
    from rich.progress import Progress as LiveLine

QUIET_DRAW_S = 1.0
"""Shortest time between two progress lines while a rung's samples are timed (s)."""


class RunProgress:
    """Progress on stderr: a live line on a terminal, one line per finished scenario always.

    The live line is a ``rich.progress`` display redrawn only when an event arrives (no
    refresh thread), at most once a :data:`QUIET_DRAW_S` while a rung's samples are timed, and
    cleared before each permanent line.  Not on a terminal, or on a dumb one (``TERM=dumb``),
    there is no live line and nothing but the permanent lines is written: no control
    sequences (and Rich is not loaded).

    Args:
        stream: where to write (stderr).
        live: the stream is a terminal (a live line may be drawn there).
        clock: seconds, for the quiet timed window; injectable for tests.
    """

    def __init__(
        self, stream: TextIO, live: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self._line = _live_line(stream) if live else None
        self.live = self._line is not None
        self._clock = clock
        self._drawn_at = float("-inf")
        self._current = ""

    def show(self, event: Event) -> None:
        """Render one runner event."""
        if isinstance(event, BuildStarted):
            if event.index == 0:
                self.note(f"{BUILDING_NOTE}: {event.total} modules, {event.jobs} at a time")
            self._live(build_progress(event))
        elif isinstance(event, ProbeStarted):
            if event.index == 0:
                self.note(
                    f"measuring {event.total} probes: this machine's unit costs, once per "
                    "machine and interpreter (cached for later runs)"
                )
            if self.live:
                self._live(probe_progress(event))
            else:
                self.note(probe_progress(event))
        elif isinstance(event, ScenarioStarted):
            self._live(f"[{event.index + 1}/{event.total}] {event.name}: starting")
            self._current = f"[{event.index + 1}/{event.total}] {event.name}"
        elif isinstance(event, ScenarioProgress):
            if event.timed_window and self._clock() - self._drawn_at < QUIET_DRAW_S:
                return  # samples are being timed: keep the terminal (another process) quiet
            detail: str = event.phase
            if event.phase == "running":
                detail += f" sample {event.samples_done}/{event.samples_total}"
            self._live(f"{self._current}: {detail}")
        elif isinstance(event, ScenarioFinished):
            r = event.result
            speed = (
                f"{fmt_seconds(r.median_s)}  {fmt_gflops(r.gflops)} {rate_unit(r.dtype)}"
                if r.has_speed
                else headline(r.error or "")
            )
            self.note(f"[{event.index + 1}/{event.total}] {r.name}: {r.status}  {speed}")
        elif isinstance(event, RunFinished):
            self._clear()

    def note(self, text: str) -> None:
        """Print a permanent line (clearing the live line first)."""
        self._clear()
        print(text, file=self.stream, flush=True)

    def _live(self, text: str) -> None:
        if not self.live:
            return
        assert self._line is not None
        self._drawn_at = self._clock()
        self._line.update(self._line.task_ids[0], description=text)
        if self._line.live.is_started:
            self._line.refresh()
        else:
            self._line.start()  # draws the line

    def _clear(self) -> None:
        if self._line is not None and self._line.live.is_started:
            self._line.stop()  # transient: the line is erased


def _live_line(stream: TextIO) -> LiveLine | None:
    """A one-line ``rich.progress`` display on the terminal ``stream``, redrawn only when
    asked; None on a dumb terminal (``TERM=dumb``), which cannot take control sequences."""
    from rich.console import Console  # only here: a run on a pipe never loads Rich
    from rich.progress import Progress as LiveLine
    from rich.progress import TextColumn

    console = Console(file=stream, force_terminal=True, highlight=False)
    if not console.is_interactive:
        return None
    line = LiveLine(
        TextColumn("{task.description}", markup=False),
        console=console,
        auto_refresh=False,  # no thread drawing while samples are timed
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    line.add_task("", total=None)
    return line


class PointProgress(RunProgress):
    """A budgeted sweep's progress on stderr: a live line on a terminal, one line per point
    always (probes and the workers' phases as ``run`` shows them)."""

    def show(self, event: object) -> None:
        """Render one sweep event (of ``sweeps.sizes`` or ``sweeps.shapes``)."""
        if isinstance(event, PointStarting):
            self.started(event.index, event.total, event.label, event.predicted_s)
        elif isinstance(event, PointMeasured):
            p = event.point
            self.finished(p.status, p.gflops, p.median_s, p.error)
        elif isinstance(event, ProbeStarted | ScenarioProgress):
            super().show(event)
        elif isinstance(event, ScenarioStopped):
            self.note(f"    {event.scenario}: stopped ({event.reason}): {event.detail}")

    def started(self, index: int, total: int, point: str, predicted_s: float | None) -> None:
        """A point starts: ``point`` names it (``numba_ikj n=64``); ``predicted_s`` in s."""
        self._current = f"[{index + 1}/{total}] {point}"
        guess = f" (about {predicted_s:.1f} s)" if predicted_s else ""
        self._live(f"{self._current}: starting{guess}")

    def finished(
        self, status: str, gflops: float | None, median_s: float | None, error: str | None
    ) -> None:
        """A point's line: GFLOP/s and the median call (s) when ok, else status and error."""
        if status == "ok" and gflops and median_s:
            text = f"ok  {fmt_gflops(gflops)} GFLOP/s  ({fmt_seconds(median_s)})"
        else:
            text = f"{status}  {headline(error or '')}".rstrip()
        self.note(f"{self._current}: {text}")
