"""``overhead-tui sweep``: GFLOP/s against n per scenario within a time budget."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from overhead_tui.commands.budgeted import (
    add_budgeted_options,
    add_points_option,
    add_swept_scenarios,
    plan_points,
    run_budgeted,
)
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import check_sizes
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.present.tables import render_sweep_table
from overhead_tui.summary.records import Settings
from overhead_tui.sweeps.sizes import (
    DEFAULT_BUDGET_S,
    DEFAULT_SCENARIOS,
    DEFAULT_SIZES,
    SWEEP_MIN_SAMPLE_S,
    SWEEP_REPEATS,
    SizeSweep,
)

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


def plan_sweep(args: argparse.Namespace) -> tuple[list[ScenarioSpec], Settings]:
    """Select the scenarios and check sizes and interpreter before anything runs.

    Sizes above a scenario's maximum are allowed (the sweep stops it there with
    ``max_size``) as long as one size fits.

    Raises:
        UsageError: unknown scenario, broken scenario file, no size within a scenario's
            maximum, the largest size too big for memory, unusable interpreter, or --app
            without a terminal.
    """
    return plan_points(args, DEFAULT_SCENARIOS, lambda specs: check_sweep(args, specs))


def check_sweep(args: argparse.Namespace, specs: list[ScenarioSpec]) -> None:
    """Each of ``specs`` against ``--sizes`` (:func:`check_sweep_sizes`)."""
    for spec in specs:
        check_sweep_sizes(spec, args.sizes, args.dtype, chosen=spec.name in args.scenario)


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
    return run_budgeted(
        args,
        lambda run_dir: SizeSweep(specs, args.sizes, args.budget, settings, run_dir),
        lambda summary: print(render_sweep_table(summary)),
    )


COMMAND = Command("sweep", HELP, DESCRIPTION, run, (add_options,))
