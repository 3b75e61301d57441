"""``overhead-tui sweep``: GFLOP/s against n per scenario within a time budget."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from overhead_tui.commands.arguments import positive_int, seconds_to_wait
from overhead_tui.commands.common import (
    add_measurement_options,
    add_scenario_choice,
    check_sizes,
    prepare_cache,
    settings_from,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.commands.run import Progress
from overhead_tui.engine.events import ProbeStarted, ScenarioProgress
from overhead_tui.engine.run_dir import prepare_run_dir
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.interpreters.check import check_python
from overhead_tui.plugins.scenarios import ScenarioSpec, discover, select
from overhead_tui.present.sweep_rows import point_cell, sweep_rows
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.summary.sweep import BudgetedPoint
from overhead_tui.summary.units import fmt_gflops, fmt_seconds
from overhead_tui.summary.vocabulary import FAILED
from overhead_tui.sweeps.budgeted import PointMeasured, PointStarting, ScenarioStopped
from overhead_tui.sweeps.sizes import (
    DEFAULT_BUDGET_S,
    DEFAULT_SCENARIOS,
    DEFAULT_SIZES,
    SWEEP_MIN_SAMPLE_S,
    SWEEP_REPEATS,
    Sweep,
)

if TYPE_CHECKING:
    from overhead_tui.sweeps.shapes import ShapesSweep


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


HELP = "measure GFLOP/s against the matrix order n within a time budget"
DESCRIPTION = (
    "Run each scenario at each size (smallest first), one worker per point, "
    "within a time budget split among the scenarios: a scenario stops when its next size "
    "would not fit (time per call grows as n³), or at its first failed point. Prints a "
    "line per point and a scenario × n table; saves summary.json (top-level 'sweep') "
    "after every point, with the machine's measured limits from the probes (cached per "
    "machine; measured first when missing, outside the budget)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``sweep``."""
    add_swept_scenarios(parser, DEFAULT_SCENARIOS)
    add_points_option(
        parser,
        "--sizes",
        "N",
        f"matrix orders, comma-separated (default: {','.join(map(str, DEFAULT_SIZES))})",
        DEFAULT_SIZES,
    )
    add_budgeted_options(parser, DEFAULT_BUDGET_S, SWEEP_REPEATS, SWEEP_MIN_SAMPLE_S, "Sweep")


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
    return select(discover(list(args.scenarios_dir)), list(args.scenario or defaults))


def plan_sweep(args: argparse.Namespace) -> tuple[list[ScenarioSpec], Settings]:
    """Select the scenarios and check sizes and interpreter before anything runs.

    Sizes above a scenario's maximum are allowed (the sweep stops it there with
    ``max_size``) as long as one size fits.

    Raises:
        UsageError: unknown scenario, broken scenario file, no size within a scenario's
            maximum, the largest size too big for memory, unusable interpreter, or --app
            without a terminal.
    """
    specs = swept_scenarios(args, DEFAULT_SCENARIOS)
    settings = point_settings(args, specs)
    for spec in specs:
        check_sweep_sizes(spec, args.sizes, args.dtype, chosen=spec.name in args.scenario)
    if settings.python is not None:
        settings.python = check_python(settings.python)
    return specs, settings


def check_sweep_sizes(spec: ScenarioSpec, sizes: Sequence[int], dtype: str, chosen: bool) -> None:
    """Check that some size in ``sizes`` fits ``spec`` and the largest such fits in memory.

    ``chosen``: the user named the scenario with ``--scenario`` (the fix says to drop it).

    Raises:
        UsageError: every size is above the scenario's maximum, or the largest size within
            it needs more memory than is available.
    """
    fitting = [n for n in sizes if n <= spec.max_size]
    if not fitting:
        without = (
            f"drop --scenario {spec.name}"
            if chosen
            else f"choose scenarios without {spec.name} (--scenario NAME ...)"
        )
        raise UsageError(
            f"{spec.name}'s maximum is {spec.max_size}; every size in --sizes is larger; "
            f"fix: add a size of {spec.max_size} or less to --sizes or {without}"
        )
    check_sizes([spec], Settings(size=max(fitting), dtype=dtype))


def run(args: argparse.Namespace) -> int:
    """Sweep; exit 0 when every point is ok (budget and size stops are normal), 1 when a
    point failed or none was measured, 130 when stopped by Ctrl-C, SIGTERM or SIGHUP."""
    specs, settings = plan_sweep(args)
    run_dir = prepare_run_dir(args.out)
    prepare_cache()
    sweep = Sweep(specs, args.sizes, args.budget, settings, run_dir)
    progress = PointProgress(sys.stderr, live=stderr_is_tty())
    progress.note(
        f"sweeping {', '.join(sweep.names)} at n = {', '.join(map(str, sweep.sizes))} "
        f"within {args.budget:g} s ({settings.dtype})"
    )
    drive(sweep, progress)
    summary = sweep.summary
    print(render_sweep_table(summary))
    progress.note(f"run directory: {run_dir}")
    if args.app and (code := show_in_app(summary)):
        return code  # 130: Ctrl-C in the app
    return exit_status(sweep, summary.sweep.points if summary.sweep else [])


def show_in_app(summary: RunSummary) -> int:
    """Open the app on ``summary``: a summary with a sweep opens on the Sweep screen, one
    with ``shapes`` on the Shapes screen; the app's exit code (``commands.common.run_app``)."""
    from overhead_tui.commands.common import check_settings, run_app
    from overhead_tui.tui.app import OverheadApp

    return run_app(OverheadApp(summary=summary, check_settings=check_settings))


def render_sweep_table(summary: RunSummary) -> str:
    """GFLOP/s per scenario (rows) and n (columns) as aligned text: ``!`` marks an unstable
    point, a failed point shows its status, a size not run ``—``; the last column says why a
    scenario stopped before the last size.  Failed points' errors are listed below."""
    sizes: list[int] = list(summary.sweep.sizes) if summary.sweep else []
    rows = sweep_rows(summary)
    header = ["GFLOP/s", *(f"n={n}" for n in sizes), "stopped"]
    table = [header]
    for row in rows:
        cells = [point_cell(row.points.get(n)) for n in sizes]
        table.append([row.scenario, *cells, row.stopped or ""])
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i in (0, len(header) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()
        for cells in table
    ]
    for row in rows:
        for n, point in sorted(row.points.items()):
            if point.status != "ok":
                lines.append(f"  {row.scenario} at n={n}: {point.status} — {point.error}")
    if any(p.warnings for row in rows for p in row.points.values()):
        lines.append("  ! unstable timing (noise, CPU contention): see points/<scenario>-<n>/")
    return "\n".join(lines)


class PointProgress(Progress):
    """A budgeted sweep's progress on stderr: a live line on a terminal, one line per point
    always (probes and the workers' phases as ``run`` shows them)."""

    def show(self, event: Any) -> None:
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
            text = f"{status}  {error or ''}".rstrip()
        self.note(f"{self._current}: {text}")


def drive(sweep: Sweep | ShapesSweep, progress: PointProgress) -> None:
    """Run ``sweep`` to its end, showing its events; Ctrl-C, SIGTERM or SIGHUP cancel it."""
    with stop_on_signals(progress.note, sweep.cancel):
        for event in sweep.events():
            progress.show(event)


def exit_status(sweep: Sweep | ShapesSweep, points: Sequence[BudgetedPoint]) -> int:
    """130 when ``sweep`` was stopped, 1 when a point failed or none was measured, else 0
    (budget, size and skipped stops are normal)."""
    if sweep.cancelled:
        return EXIT_INTERRUPTED
    failed = [p for p in points if p.status in FAILED]
    measured = [p for p in points if p.status == "ok"]
    return 1 if failed or not measured else 0


def point_settings(args: argparse.Namespace, specs: list[ScenarioSpec]) -> Settings:
    """The settings of every point of a sweep from its options (the point's size is set per
    point): the run options' settings for the swept scenarios."""
    return settings_from(args, size=None, scenarios=[s.name for s in specs])
