"""``overhead-tui doctor``: which profiler backends work here, and how to fix the others."""

from __future__ import annotations

import argparse

from overhead_tui.commands.command import Command
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
    for cap in detect().values():
        if cap.ok:
            print(f"{cap.name:<10} ok           {cap.version or '?':<10} {cap.path or ''}")
        else:
            print(f"{cap.name:<10} unavailable  {cap.version or '':<10} {cap.reason}")
            print(f"{'':<10} fix: {cap.fix}")
    return 0


COMMAND = Command("doctor", HELP, DESCRIPTION, run, (add_options,))
