"""What the budgeted sweep commands (``sweep`` over n, ``shapes`` over the batch m) share:
their point and budget options, their scenarios, driving a sweep with its progress, and the
exit status.  Composed into both commands (neither imports the other)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from overhead_tui.commands.arguments import positive_int, seconds_to_wait
from overhead_tui.commands.common import (
    add_measurement_options,
    add_scenario_choice,
    open_summary,
    prepare_cache,
    settings_from,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.engine.run_dir import prepare_run_dir
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.interpreters.check import verified_python
from overhead_tui.plugins.scenarios import ScenarioSpec, discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.progress import PointProgress
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.summary.vocabulary import FAILED

if TYPE_CHECKING:
    from overhead_tui.sweeps.shapes import ShapesSweep
    from overhead_tui.sweeps.sizes import SizeSweep


def parse_sizes(text: str) -> tuple[int, ...]:
    """argparse type for ``--sizes 8,16,32``: sorted, distinct matrix orders ≥ 1.

    Raises:
        argparse.ArgumentTypeError: an empty list or item, or an item that is not a whole
            number ≥ 1 (one line naming it).
    """
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise argparse.ArgumentTypeError("no sizes given; fix: give sizes like 8,16,32")
    if not all(items):
        raise argparse.ArgumentTypeError(
            f"empty item in {text!r}; fix: give sizes like 8,16,32 (commas between numbers)"
        )
    return tuple(sorted({positive_int(item) for item in items}))


def add_swept_scenarios(parser: argparse.ArgumentParser, defaults: tuple[str, ...]) -> None:
    """``--scenario``, repeatable: the scenarios a sweep runs (default: ``defaults``)."""
    add_scenario_choice(parser, f"sweep this scenario (repeatable; default: {', '.join(defaults)})")


def add_points_option(
    parser: argparse.ArgumentParser,
    flag: str,
    letter: str,
    help: str,
    default: tuple[int, ...] | None = None,
) -> None:
    """The option naming a budgeted sweep's points (``--sizes`` n, ``--batches`` m): whole
    numbers ≥ 1, comma-separated (``parse_sizes``)."""
    parser.add_argument(
        flag, type=parse_sizes, default=default, metavar=f"{letter},{letter},...", help=help
    )


def add_budgeted_options(
    parser: argparse.ArgumentParser,
    budget_s: float,
    repeats: int,
    min_time_s: float,
    screen: str,
) -> None:
    """The options every budgeted sweep has after its own: ``--budget`` (default
    ``budget_s``), the measurement options (per point) and ``--app`` (opens ``screen``)."""
    parser.add_argument(
        "--budget",
        type=seconds_to_wait,
        default=budget_s,
        metavar="S",
        help=f"total seconds, split among the scenarios (default: {budget_s:g}; the probes, "
        "when measured, come on top)",
    )
    add_measurement_options(parser, repeats=repeats, min_time_s=min_time_s, unit="point")
    parser.add_argument(
        "--app", action="store_true", help=f"afterwards, show the {screen} screen in the app"
    )


def swept_scenarios(args: argparse.Namespace, defaults: tuple[str, ...]) -> list[ScenarioSpec]:
    """The scenarios a budgeted sweep runs (``--scenario``, or ``defaults``), once ``--app``
    is known to have a terminal.

    Raises:
        UsageError: --app without a terminal, an unknown scenario or a broken scenario file.
    """
    if args.app and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("--app needs a terminal (stdin and stdout are not a TTY); fix: drop --app")
    chosen = list(args.scenario) or ([] if args.sets else list(defaults))
    return select(discover(list(args.scenarios_dir)), chosen, args.sets)


def drive(sweep: SizeSweep | ShapesSweep, progress: PointProgress) -> None:
    """Run ``sweep`` to its end, showing its events; Ctrl-C, SIGTERM or SIGHUP cancel it."""
    with stop_on_signals(progress.note, sweep.cancel):
        for event in sweep.events():
            progress.show(event)


def exit_status(sweep: SizeSweep | ShapesSweep) -> int:
    """130 when ``sweep`` was stopped, 1 when a point failed or none was measured, else 0
    (budget, size and skipped stops are normal)."""
    if sweep.cancelled:
        return EXIT_INTERRUPTED
    points = sweep.record.points
    failed = [p for p in points if p.status in FAILED]
    measured = [p for p in points if p.status == "ok"]
    return 1 if failed or not measured else 0


def run_budgeted(
    args: argparse.Namespace,
    start: Callable[[Path], SizeSweep | ShapesSweep],
    report: Callable[[RunSummary], None],
    *notes: str,
    wall_time: bool = False,
) -> int:
    """A budgeted sweep command's run once its request is checked: the sweep ``start`` makes
    in a new run directory (``--out``; the build cache prepared), ``notes`` and what it sweeps
    on stderr, the sweep driven to its end (:func:`drive`), ``report`` (the summary's table on
    stdout, its exports), then the run directory (and with ``wall_time`` the wall time) on
    stderr and, with ``--app``, the app.  Returns the exit status (:func:`exit_status`; the
    app's 130 on Ctrl-C)."""
    run_dir = prepare_run_dir(args.out)
    prepare_cache()
    sweep = start(run_dir)
    progress = PointProgress(sys.stderr, live=stderr_is_tty())
    for note in notes:
        progress.note(note)
    progress.note(
        f"sweeping {', '.join(sweep.names)} at {sweep.axis.name} = "
        f"{', '.join(map(str, sweep.points))} within {sweep.budget_s:g} s "
        f"({sweep.settings.dtype})"
    )
    drive(sweep, progress)
    summary = sweep.summary
    report(summary)
    progress.note(f"run directory: {run_dir}")
    if wall_time and summary.wall_s is not None:
        progress.note(f"wall time: {summary.wall_s:.1f} s")
    if args.app and (code := open_summary(summary)):
        return code  # 130: Ctrl-C in the app
    return exit_status(sweep)


def plan_points(
    args: argparse.Namespace,
    defaults: tuple[str, ...],
    check: Callable[[list[ScenarioSpec]], None],
) -> tuple[list[ScenarioSpec], Settings]:
    """A budgeted sweep's request checked before anything runs: its scenarios
    (:func:`swept_scenarios`), ``check`` on them (the command's own: its points against their
    maximum and the memory, its export paths), the settings of every point
    (:func:`point_settings`) and the interpreter (``settings.python`` set to its resolved
    path).

    Raises:
        UsageError: naming the problem and the fix.
    """
    specs = swept_scenarios(args, defaults)
    check(specs)
    settings = point_settings(args, specs)
    if settings.python is not None:
        settings.python = verified_python(settings.python)
    return specs, settings


def point_settings(args: argparse.Namespace, specs: list[ScenarioSpec]) -> Settings:
    """The settings of every point of a sweep from its options (the point's size is set per
    point): the run options' settings for the swept scenarios."""
    return settings_from(args, size=None, scenarios=[s.name for s in specs])
