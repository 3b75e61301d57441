"""``overhead-tui list``: the scenarios found, in rung order, with layers and removes."""

from __future__ import annotations

import argparse

from overhead_tui.commands.command import Command
from overhead_tui.commands.common import add_scenario_dirs
from overhead_tui.plugins.scenarios import discover

HELP = "list the scenarios (rungs) with their layers"
DESCRIPTION = (
    "List built-in scenarios and those in --scenarios-dir folders. A scenario "
    "file declares NAME, TITLE, RUNG, LAYERS, REMOVES, DEFAULT_SIZE, MAX_SIZE and DTYPES as "
    "literals and defines setup(a, b), kernel(*args) and to_numpy(result)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``list``."""
    add_scenario_dirs(parser)


def run(args: argparse.Namespace) -> int:
    """Print one block per scenario."""
    for spec in discover(list(args.scenarios_dir)):
        tag = "  [dense kernel]" if spec.dense_kernel else ""
        print(f"{spec.rung:>3}  {spec.name:<24} {spec.title}{tag}")
        print(
            f"     n = {spec.default_size} (max {spec.max_size}), dtypes {', '.join(spec.dtypes)}"
        )
        print(f"     layers:  {', '.join(spec.layers) or '-'}")
        print(f"     removes: {', '.join(spec.removes) or '-'}")
    return 0


COMMAND = Command("list", HELP, DESCRIPTION, run, (add_options,))
