"""``overhead-tui shapes``: GFLOP/s against the batch m of C (m×n) = A (m×k)·B (k×n), B fixed
and larger than the last-level cache — when does a matrix product leave the memory roof?"""

from __future__ import annotations

import argparse

from overhead_tui.commands.arguments import positive_int
from overhead_tui.commands.budgeted import (
    add_budgeted_options,
    add_points_option,
    add_swept_scenarios,
    plan_points,
    run_budgeted,
)
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import add_export_options
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.errors import UsageError
from overhead_tui.export.shapes import render_shapes_markdown
from overhead_tui.machine.caches import read_cache_sizes
from overhead_tui.machine.host import available_memory_bytes
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.present.shapes_text import render_shapes_table
from overhead_tui.summary.product import estimated_bytes
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE
from overhead_tui.sweeps.shapes import (
    DEFAULT_BUDGET_S,
    DEFAULT_SCENARIOS,
    SHAPES_MIN_SAMPLE_S,
    SHAPES_REPEATS,
    ShapesSweep,
    default_batches,
    default_weights_order,
)

HELP = "GFLOP/s against the batch m of (m×k)·(k×n): when a product leaves the memory roof"
DESCRIPTION = (
    "Multiply A (m×k) by a fixed B (k×n) for m = 1, 2, 4, ... up to n, one "
    "worker per point, within a time budget split among the scenarios. B defaults to "
    "k = n large enough to hold twice the last-level cache (read from sysfs), so m = 1 is "
    "a matrix-vector product bound by memory bandwidth. Each point is placed on the "
    "roofline (arithmetic intensity, min(peak, bandwidth × intensity), which roof binds) "
    "from the probes' measured peak and bandwidth; the crossing where the curve leaves the "
    "bandwidth slope is given measured and predicted. Saves summary.json (top-level "
    "'shapes')."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``shapes``."""
    add_swept_scenarios(parser, DEFAULT_SCENARIOS)
    parser.add_argument(
        "--k",
        type=positive_int,
        metavar="K",
        help="inner order: A is m×K, B is K×N (default: N, or from the cache sizes)",
    )
    parser.add_argument(
        "--n",
        type=positive_int,
        metavar="N",
        help="columns of B and C (default: K, or from "
        "the cache sizes: B ≥ 2× the last-level cache)",
    )
    add_points_option(
        parser,
        "--batches",
        "M",
        "batches m, comma-separated (default: 1, 2, 4, ... up to N, and N)",
    )
    add_export_options(
        parser,
        json="also write the summary JSON",
        markdown="write a Markdown report: table, crossing, reference machines (prediction)",
    )
    add_budgeted_options(parser, DEFAULT_BUDGET_S, SHAPES_REPEATS, SHAPES_MIN_SAMPLE_S, "Shapes")


def choose_shape(
    args: argparse.Namespace, specs: list[ScenarioSpec]
) -> tuple[int, int, list[int], str]:
    """(k, n, batches, why B has this size) from the options and the cache sizes; a size
    from the caches is clamped to the selected scenarios' smallest ``MAX_SIZE``."""
    itemsize = DTYPE_ITEMSIZE[args.dtype]
    if args.k is None and args.n is None:
        smallest = min(specs, key=lambda spec: spec.max_size, default=None)
        order, reason = default_weights_order(
            read_cache_sizes(),
            itemsize,
            smallest.max_size if smallest else None,
            smallest.name if smallest else "",
        )
        k = n = order
    else:
        k = args.k or args.n
        n = args.n or args.k
        mib = itemsize * k * n / 2**20
        reason = f"k = {k}, n = {n} as given: B is {mib:.3g} MiB"
    batches = list(args.batches) if args.batches else default_batches(n)
    return k, n, batches, reason


def plan_shapes(args: argparse.Namespace) -> tuple[list[ScenarioSpec], Settings]:
    """Select the scenarios and check the shapes and interpreter before anything runs.

    Raises:
        UsageError: unknown scenario, broken scenario file, B above a chosen scenario's
            maximum, the largest product too big for memory, unusable interpreter, or --app
            without a terminal.
    """
    return plan_points(args, DEFAULT_SCENARIOS, lambda specs: check_shapes(args, specs))


def check_shapes(args: argparse.Namespace, specs: list[ScenarioSpec]) -> None:
    """The export paths, and B and the largest product against ``specs``' maximum and the
    memory (:func:`plan_shapes`)."""
    check_export_paths({"--json": args.json, "--markdown": args.markdown}, args.out)
    k, n, batches, _ = choose_shape(args, specs)
    for spec in specs:
        if max(k, n) > spec.max_size:
            raise UsageError(
                f"k = {k}, n = {n} is above {spec.name}'s maximum of {spec.max_size}; fix: "
                f"give --k/--n of {spec.max_size} or less, or drop --scenario {spec.name}"
            )
    available = available_memory_bytes()
    need = estimated_bytes(n, args.dtype, m=max(batches), k=k)
    if available is not None and need > available:
        raise UsageError(
            f"m = {max(batches)}, k = {k}, n = {n} needs about {need / 2**30:.1f} GiB but only "
            f"{available / 2**30:.1f} GiB is available; fix: choose smaller --k/--n/--batches"
        )


def run(args: argparse.Namespace) -> int:
    """Sweep the batches; exit 0 when every run point is ok (budget stops and scenarios
    without shape support are normal), 1 when a point failed or none was measured, 130 when
    stopped."""
    specs, settings = plan_shapes(args)
    k, n, batches, reason = choose_shape(args, specs)
    return run_budgeted(
        args,
        lambda run_dir: ShapesSweep(specs, k, n, batches, args.budget, settings, run_dir, reason),
        lambda summary: report(summary, args),
        reason,
        wall_time=True,
    )


def report(summary: RunSummary, args: argparse.Namespace) -> None:
    """The shapes table on stdout, then the exports (:func:`write_exports`)."""
    print(render_shapes_table(summary))
    write_exports(summary, args)


def write_exports(summary: RunSummary, args: argparse.Namespace) -> None:
    """``--json`` (the whole summary) and ``--markdown`` (the shapes report)."""
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(summary.dumps(), encoding="utf-8")
    if args.markdown is not None:
        from overhead_tui.machine.reference import reference_machines

        machines, _ = reference_machines()
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(render_shapes_markdown(summary, machines), encoding="utf-8")


COMMAND = Command("shapes", HELP, DESCRIPTION, run, (add_options,))
