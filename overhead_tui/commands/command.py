"""A subcommand as an object: :class:`Command`, one per module of ``commands/`` (its
``COMMAND``), the way memray keeps one object per command.

Commands share behaviour by composition, not by importing each other: a command's options
are the option groups it is made of (``commands.common``'s run, measurement, scenario and
export groups; ``commands.budgeted``'s swept scenarios, points and budget), and its ``run``
calls the shared steps (``common.checked_request``, ``common.check_request``, ``common.run_app`` …).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

OptionGroup = Callable[[argparse.ArgumentParser], None]
"""Adds a group of arguments to a command's parser."""


@dataclass(frozen=True)
class Command:
    """One subcommand.

    Attributes:
        name: what the user types (``overhead-tui NAME``).
        help: its line in ``overhead-tui --help``.
        description: the top of ``overhead-tui NAME --help``.
        run: runs it on the parsed arguments; the process's exit code.
        options: the option groups its parser is made of, in order.
        parser_options: more keyword arguments of its parser (``conflict_handler``).
    """

    name: str
    help: str
    description: str
    run: Callable[[argparse.Namespace], int]
    options: tuple[OptionGroup, ...] = ()
    parser_options: Mapping[str, Any] = field(default_factory=dict)

    def register(
        self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]
    ) -> argparse.ArgumentParser:
        """Add its parser to ``subparsers`` (argparse's ``add_subparsers()``); the parser."""
        parser: argparse.ArgumentParser = subparsers.add_parser(
            self.name, help=self.help, description=self.description, **self.parser_options
        )
        for add in self.options:
            add(parser)
        return parser
