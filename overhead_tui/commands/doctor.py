"""``overhead-tui doctor``: which profiler backends work here, and how to fix the others."""

from __future__ import annotations

import argparse

from overhead_tui.commands.command import Command
from overhead_tui.present.tables import capability_lines
from overhead_tui.profilers.registry import detect

HELP = "check the profiler backends (perf, py-spy, callgrind, Scalene)"
DESCRIPTION = (
    "Print each profiler backend: available or not, its version, and when not, "
    "the reason and the fix. A missing backend never stops the ladder."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``doctor``."""


def run(args: argparse.Namespace) -> int:
    """One line per backend (plus the fix); exit 0 even when some are missing."""
    print("\n".join(capability_lines(list(detect().values()))))
    return 0


COMMAND = Command("doctor", HELP, DESCRIPTION, run, (add_options,))
