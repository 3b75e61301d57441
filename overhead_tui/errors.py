"""Errors that map to exit code 2 (usage errors): one line, naming the problem and the fix;
and the exit code of a command stopped by Ctrl-C, SIGTERM or SIGHUP."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the user: unknown scenario, bad size or dtype, broken scenario file."""


class MissingPackageFile(Exception):
    """A file the package builds a path to (a worker module, a stylesheet, a probe helper) is
    not there: a broken or partial installation, never skipped (exit 1, one line)."""


EXIT_USAGE = 2
"""Exit code of bad input (argparse's too): one line naming the problem and the fix; an
export that cannot be written and a command that needs a terminal without one are bad input."""

EXIT_INTERRUPTED = 130
"""Exit code of a command stopped by Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells
report it); what finished is kept."""
