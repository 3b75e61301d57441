"""Errors that map to exit code 2 (usage errors): one line, naming the problem and the fix."""

from __future__ import annotations


class UsageError(Exception):
    """Bad input from the user: unknown scenario, bad size or dtype, broken scenario file."""
