"""Command-line entry point: ``overhead-tui [run|list|open] ...``.

Errors map to exit codes here and only here: usage errors (unknown scenario, bad size, broken
scenario file, corrupt summary) print one line and exit 2, with no traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

import overhead_tui
from overhead_tui.commands import app as app_command
from overhead_tui.commands import compare as compare_command
from overhead_tui.commands import doctor as doctor_command
from overhead_tui.commands import interpreters as interpreters_command
from overhead_tui.commands import list as list_command
from overhead_tui.commands import machine as machine_command
from overhead_tui.commands import probes as probes_command
from overhead_tui.commands import profile as profile_command
from overhead_tui.commands import run as run_command
from overhead_tui.commands import shapes as shapes_command
from overhead_tui.commands import sweep as sweep_command
from overhead_tui.commands.common import add_run_options
from overhead_tui.errors import UsageError
from overhead_tui.present.terminal import use_ascii_fallback
from overhead_tui.summary.validation import SummaryError

EXIT_USAGE = 2
"""Exit code for bad input (argparse uses the same)."""

COMMANDS = {
    "run": run_command,
    "list": list_command,
    "open": app_command,
    "probes": probes_command,
    "profile": profile_command,
    "doctor": doctor_command,
    "machine": machine_command,
    "sweep": sweep_command,
    "compare": compare_command,
    "shapes": shapes_command,
    "interpreters": interpreters_command,
}


class OneLineErrorParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (no usage dump) and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = OneLineErrorParser(
        prog="overhead-tui",
        # no abbreviations at the top: argparse classifies every argument with the top-level
        # options first, so `shapes --n 64` would be an ambiguous prefix of --no-probes
        allow_abbrev=False,
        description="Measure how far pure Python, numpy and compiled rungs of a matrix-multiply "
        "ladder are from the dense kernel, and why. Without a command, opens the app and runs "
        "the ladder (the run options below apply).",
    )
    parser.add_argument(
        "--version", action="version", version=f"overhead-tui {overhead_tui.__version__}"
    )
    add_run_options(parser)
    app_command.add_app_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in COMMANDS.values():
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command; returns the process exit code."""
    use_ascii_fallback()  # an ascii stdout gets "x" for "×", never a UnicodeEncodeError
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            return app_command.launch(args)
        return int(COMMANDS[args.command].run(args))
    except (UsageError, SummaryError) as exc:
        print(f"overhead-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("overhead-tui: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
