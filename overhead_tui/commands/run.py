"""``overhead-tui run``: measure the ladder headless, print the table, export the summary."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from overhead_tui.analysis.attribution import attach_profile
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import (
    add_export_options,
    add_run_options,
    checked_request,
    prepare_cache,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.events import (
    RunFinished,
)
from overhead_tui.engine.run_dir import prepare_run_dir
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import EXIT_INTERRUPTED, EXIT_USAGE, UsageError
from overhead_tui.export import export
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.present.profile_text import profile_line
from overhead_tui.present.progress import RunProgress
from overhead_tui.present.tables import render_table
from overhead_tui.profilers.profile import profile_scenario
from overhead_tui.profilers.registry import BACKENDS
from overhead_tui.summary.records import SUMMARY_FILE, RunSummary

if TYPE_CHECKING:
    pass


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
    specs, settings = checked_request(args)
    exports = {"--json": args.json, "--markdown": args.markdown, "--csv": args.csv}
    check_export_paths(exports, args.out)
    run_dir = prepare_run_dir(args.out)
    prepare_cache()
    runner = Runner(specs, settings, run_dir)
    progress = RunProgress(sys.stderr, live=stderr_is_tty())
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
        return EXIT_USAGE  # a bad output path is bad input: the run itself is saved
    return 1 if failed or not measured else 0


def profile_all(
    summary: RunSummary, specs: list[ScenarioSpec], backends: tuple[str, ...], progress: RunProgress
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
        progress.note(f"profiled {result.name}: {profile_line(profile)}")


COMMAND = Command("run", HELP, DESCRIPTION, run, (add_options,))
