"""Command-line entry point: ``overhead-tui [run|list|open] ...``.

Errors map to exit codes here and only here: usage errors (unknown scenario, bad size, broken
scenario file, corrupt summary) print one line and exit 2, with no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import signal
import sys
from types import ModuleType
from typing import NoReturn

import overhead_tui
from overhead_tui.engine.interrupts import STOP_SIGNALS, interrupt_or_hold
from overhead_tui.errors import EXIT_INTERRUPTED, EXIT_USAGE, MissingPackageFile, UsageError
from overhead_tui.present.terminal import use_ascii_fallback
from overhead_tui.summary.validation import SummaryError

COMMANDS = (
    "run",
    "list",
    "open",
    "probes",
    "profile",
    "doctor",
    "machine",
    "sweep",
    "compare",
    "shapes",
    "interpreters",
    "new",
    "watch",
)
"""Subcommands, in the order ``--help`` lists them; each is a module of ``overhead_tui.commands``
(``open`` is ``commands.app``) whose ``COMMAND`` is its :class:`~overhead_tui.commands.command
.Command`.  They are imported when the parser is built, so ``--version`` loads neither numpy
nor Textual."""


OUTPUT_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""Errors of writing to a full device (``> /dev/full``, a full disk or quota): one line, exit 1;
results already saved in the run directory stay there."""


def _interrupt(signum: int, frame: object) -> None:
    interrupt_or_hold()


def stop_like_ctrl_c() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop a command alike (exit 130, what finished kept, every
    child's process group killed on the way out), in every phase: the checks before a run
    (``--python``'s test interpreter), builds, profiles; never between a child's start and
    its record (``engine.interrupts.interrupt_or_hold``).  A run or sweep replaces these handlers
    with its own while it measures (``commands.common.stop_on_signals``)."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, _interrupt)


def _drop_stdout() -> None:
    """Point stdout at /dev/null so nothing left in its buffer is written at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def command_module(name: str) -> ModuleType:
    """The module of subcommand ``name``."""
    return importlib.import_module(f"overhead_tui.commands.{'app' if name == 'open' else name}")


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
    from overhead_tui.commands.common import add_run_options

    add_run_options(parser)
    command_module("open").add_app_options(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        command_module(name).COMMAND.register(subparsers)
    return parser


def _options_before(parser: argparse.ArgumentParser, argv: list[str], command: str) -> list[str]:
    """The options (with their values) given before ``command`` in ``argv``: the bare app's,
    which a subcommand's own defaults would silently replace (``overhead-tui --size 8 run``
    ran at the default n)."""
    given: list[str] = []
    takes_value = False
    for token in argv:
        if not takes_value and token == command:
            break
        given.append(token)
        if takes_value:  # the value of the option before it (it may be spelt like a command)
            takes_value = False
        elif token.startswith("-"):
            action = parser._option_string_actions.get(token)  # argparse keeps no public map
            takes_value = action is not None and action.nargs != 0
    return given


def _command_options(parser: argparse.ArgumentParser, command: str) -> set[str]:
    """The option strings ``command``'s own parser takes (argparse keeps no public map)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            return set(action.choices[command]._option_string_actions)
    return set()


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the command; returns the process exit code."""
    use_ascii_fallback()  # an ascii stdout gets "x" for "×", never a UnicodeEncodeError
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # answered without loading the commands (numpy, Textual)
        print(f"overhead-tui {overhead_tui.__version__}")
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command not in (None, "open"):  # the app keeps Textual's own handling
        stop_like_ctrl_c()
    try:
        if args.command is None:
            return int(command_module("open").launch(args))
        if before := _options_before(parser, argv, args.command):
            options = " ".join(before)
            known = _command_options(parser, args.command)
            named = [x.split("=", 1)[0] for x in before if x.startswith("-")]
            foreign = [x for x in named if x not in known]
            if foreign:  # moving them would not help: the command has no such option
                raise UsageError(
                    f"`{options}` before `{args.command}` would be ignored, and `{args.command}` "
                    f"has no {' or '.join(foreign)}; fix: drop it (see `overhead-tui "
                    f"{args.command} --help`)"
                )
            raise UsageError(
                f"`{options}` before `{args.command}` would be ignored (a command reads only the "
                f"options after it); fix: write overhead-tui {args.command} {options} ... "
                f"(see `overhead-tui {args.command} --help`)"
            )
        return int(command_module(args.command).COMMAND.run(args))
    except (UsageError, SummaryError) as exc:
        print(f"overhead-tui: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MissingPackageFile as exc:
        print(f"overhead-tui: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:
        if exc.errno not in OUTPUT_FULL:  # anything else is a bug: keep its traceback
            raise
        _drop_stdout()  # the exit's flush of what is still buffered would fail again
        where = f" {exc.filename}" if exc.filename else " the output"
        print(
            f"overhead-tui: error: cannot write{where}: {exc.strerror}; fix: free space on its "
            "device or write somewhere else",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("overhead-tui: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
