"""``overhead-tui list``: the scenarios found, in rung order, with layers, removes and sets."""

from __future__ import annotations

import argparse

from overhead_tui.commands.command import Command
from overhead_tui.commands.common import add_scenario_dirs
from overhead_tui.plugins.scenarios import discover
from overhead_tui.present.tables import scenario_lines

HELP = "list the scenarios (rungs) with their layers"
DESCRIPTION = (
    "List built-in scenarios and those in --scenarios-dir folders. A scenario "
    "file declares TITLE, RUNG, LAYERS, DEFAULT_SIZE and MAX_SIZE as literals (NAME, REMOVES "
    "and DTYPES if not the file's name, none and float64 and float32; SETS, the named sets "
    "it is run in, if not the default set) and defines "
    "kernel(*args) (setup(a, b) and to_numpy(result) if it needs them), or declares SOURCE "
    "and FLAGS (a C rung) or SOURCE and COMPILER (cython, mypyc or pythran)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``list``."""
    add_scenario_dirs(parser)


def run(args: argparse.Namespace) -> int:
    """Print one block per scenario."""
    print("\n".join(scenario_lines(discover(list(args.scenarios_dir)))))
    return 0


COMMAND = Command("list", HELP, DESCRIPTION, run, (add_options,))
