"""``overhead-tui run``: measure the ladder headless, print the table, export the summary."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from overhead_tui.analysis.attribution import attach_profile
from overhead_tui.commands.common import (
    add_export_options,
    add_run_options,
    plan,
    prepare_cache,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.events import (
    Event,
    ProbeStarted,
    RunFinished,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.engine.run_dir import SUMMARY_FILE, prepare_run_dir
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.export import export
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.present.format import (
    aligned_lines,
    below_dense_note,
    dense_reference_note,
    ladder_headers,
    ladder_row,
    probe_progress,
    skipped_for_dtype,
)
from overhead_tui.profilers.profile import profile_scenario
from overhead_tui.profilers.registry import BACKENDS
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops, fmt_seconds
from overhead_tui.summary.vocabulary import rate_unit

if TYPE_CHECKING:
    from rich.progress import Progress as LiveLine

QUIET_DRAW_S = 1.0
"""Shortest time between two progress lines while a rung's samples are timed (s)."""


HELP = "measure the ladder without the app and print a table"
DESCRIPTION = (
    "Run each scenario in its own worker process, validate and time it, "
    "print the ladder and write the run directory (log.jsonl, summary.json)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``run``."""
    add_run_options(parser)
    parser.add_argument(
        "--headless",
        action="store_true",
        help="accepted for symmetry with the app: `run` is always headless",
    )
    add_export_options(
        parser,
        json="also export the summary JSON",
        markdown="export a Markdown report",
        csv="export one CSV row per rung",
    )
    parser.add_argument(
        "--profile",
        action="append",
        choices=BACKENDS,
        default=[],
        metavar="BACKEND",
        help="after the ladder, profile every ok scenario "
        f"with this backend ({', '.join(BACKENDS)}; repeatable) and store the "
        "results in the summary",
    )


def run(args: argparse.Namespace) -> int:
    """Run the ladder; exit 0 if every scenario is ok (or skipped) and at least one was
    measured, 1 otherwise, 2 when an export could not be written (the run folder keeps the
    summary), 130 when stopped by Ctrl-C, SIGTERM or SIGHUP."""
    specs, settings = plan(args)
    exports = {"--json": args.json, "--markdown": args.markdown, "--csv": args.csv}
    check_export_paths(exports, args.out)
    run_dir = prepare_run_dir(args.out)
    prepare_cache()
    runner = Runner(specs, settings, run_dir)
    progress = Progress(sys.stderr, live=stderr_is_tty())
    summary = runner.summary
    with stop_on_signals(progress.note, runner.cancel):
        for event in runner.events():
            progress.show(event)
            if isinstance(event, RunFinished):
                summary = event.summary
    if args.profile and not runner.cancelled:
        profile_all(summary, specs, tuple(args.profile), progress)
        summary.save(run_dir / SUMMARY_FILE)
    export_failed = False  # exports first: nothing printed below can lose them
    for path, fmt in ((args.json, "json"), (args.markdown, "markdown"), (args.csv, "csv")):
        if path is not None:
            try:
                export(summary, path, fmt)
                progress.note(f"wrote {path}")
            except UsageError as exc:  # the results are safe in the run directory
                progress.note(f"overhead-tui: error: {exc}")
                export_failed = True
    print(render_table(summary))
    progress.note(f"run directory: {run_dir}")
    if runner.cancelled:
        return EXIT_INTERRUPTED
    measured = [s for s in summary.scenarios if s.status == "ok"]
    failed = [s for s in summary.scenarios if s.status not in ("ok", "skipped")]
    if export_failed:
        return 2  # a bad output path is bad input: the run itself is saved
    return 1 if failed or not measured else 0


def profile_all(
    summary: RunSummary, specs: list[ScenarioSpec], backends: tuple[str, ...], progress: Progress
) -> None:
    """Profile every ok scenario with ``backends`` at its timed size; store in the summary."""
    by_name = {s.name: s for s in specs}
    for result in summary.scenarios:
        if result.status != "ok" or result.name not in by_name:
            continue
        progress.note(f"profiling {result.name} with {', '.join(backends)} ...")
        profile = profile_scenario(
            by_name[result.name],
            result.n,
            summary.settings.dtype,
            backends,
            duration_s=2.0,
            python=summary.settings.python,
            blas_threads=result.blas_threads,
        )
        result.profile = profile
        attach_profile(result, summary)


def render_table(summary: RunSummary) -> str:
    """The ladder as an aligned plain-text table, with warnings and errors below it."""
    headers = ladder_headers(summary.settings.dtype)
    grouped, failed = skipped_for_dtype(summary)
    shown = [r for r in summary.scenarios if r.name not in grouped]
    lines = aligned_lines([headers, *(ladder_row(r) for r in shown)], {1, 7})
    lines += [f"  {line}" for line in failed]
    lines += [
        f"  {r.name}: ! {'; '.join(r.warnings)}" for r in shown if r.status == "ok" and r.warnings
    ]
    if (faster := below_dense_note(summary)) is not None:
        lines.append(f"  ({faster})")
    if grouped:
        lines.append(
            f"  {len(grouped)} rungs skipped: they do not support {summary.settings.dtype} "
            f"(see `overhead-tui list` for each rung's dtypes)"
        )
    note = dense_reference_note(summary)
    if note is not None:
        lines.append(f"  ({note})")
    for warning in summary.machine.limit_warnings or ():
        lines.append(f"  machine: ! {warning}")
    return "\n".join(lines)


class Progress:
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
        if isinstance(event, ProbeStarted):
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
                else (r.error or "")
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
