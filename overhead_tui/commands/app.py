"""``overhead-tui`` (no command) opens the app; ``overhead-tui open PATH`` shows a saved run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from overhead_tui.commands.command import Command
from overhead_tui.commands.common import (
    EXIT_NO_TTY,
    checked_request,
    open_interpreters,
    prepare_cache,
    require_terminal,
    run_app,
    settings_problem,
)
from overhead_tui.engine.run_dir import resolve_runs_parent
from overhead_tui.summary.interpreters import InterpretersSummary, is_interpreters_summary
from overhead_tui.summary.records import MAX_SUMMARY_BYTES, SUMMARY_FILE, RunSummary


def add_app_options(parser: argparse.ArgumentParser) -> None:
    """Options of the bare command (besides the run options)."""
    parser.add_argument(
        "--no-autorun",
        action="store_true",
        help="open the app without starting a run (press r to start)",
    )


HELP = "show a saved run (summary.json or a run directory) in the app"
DESCRIPTION = "Open a saved run in the app without re-running it."


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``open``."""
    parser.add_argument(
        "path", type=Path, metavar="PATH", help="a summary.json file or a run directory"
    )


OPEN_INSTEAD = "open it from a terminal; without one, its summary.json is plain JSON to read"
"""What ``open`` suggests without a terminal."""


def launch(args: argparse.Namespace) -> int:
    """Open the app on a new run with the command-line settings."""
    _, settings = checked_request(args)  # bad input fails here, before the terminal is taken over
    if not require_terminal():
        return EXIT_NO_TTY
    resolve_runs_parent(args.out)  # the app makes one run folder per run inside --out
    prepare_cache()
    from overhead_tui.tui.app import OverheadApp

    app = OverheadApp(
        settings, autorun=not args.no_autorun, runs_dir=args.out, settings_problem=settings_problem
    )
    return run_app(app)


LARGE_SUMMARY_BYTES = 5_000_000
"""Summaries above this size (bytes) are announced on stderr before loading (a few seconds)."""


def announce_large(path: Path) -> None:
    """Say on stderr that a large summary is being read (nothing for a usual one)."""
    file = path / SUMMARY_FILE if path.is_dir() else path
    try:
        size = file.stat().st_size
    except OSError:
        return  # the load says what is wrong
    if LARGE_SUMMARY_BYTES < size <= MAX_SUMMARY_BYTES:
        print(f"overhead-tui: reading {file} ({size / 1e6:,.0f} MB) ...", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """``open``: load and validate the summary, then show it (a combined interpreters summary
    opens on the *Interpreters* screen)."""
    announce_large(args.path)
    if is_interpreters_summary(args.path):
        combined = InterpretersSummary.load(args.path)  # SummaryError -> one line, exit 2
        if not require_terminal(OPEN_INSTEAD):
            return EXIT_NO_TTY
        return open_interpreters(combined)
    summary = RunSummary.load(args.path)  # SummaryError -> one line, exit 2
    if not require_terminal(OPEN_INSTEAD):
        return EXIT_NO_TTY
    from overhead_tui.tui.app import OverheadApp

    return run_app(OverheadApp(summary=summary, settings_problem=settings_problem))


COMMAND = Command("open", HELP, DESCRIPTION, run, (add_options,))
