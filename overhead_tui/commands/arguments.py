"""argparse value types of the commands: each bad value is one line naming the problem and
the accepted range (argparse turns it into exit 2)."""

from __future__ import annotations

import argparse


def non_negative_int(text: str, least: int = 0) -> int:
    """argparse type: an integer ≥ 0 (≥ ``least``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{value} is below {least}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer ≥ 1."""
    return non_negative_int(text, 1)


def positive_float(text: str) -> float:
    """argparse type: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value != value:  # NaN
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{value} must be above 0")
    if value == float("inf"):
        raise argparse.ArgumentTypeError("must be a finite number")
    return value


MAX_WAIT_S = 7 * 24 * 3600.0
"""The longest ``--timeout`` / ``--duration`` accepted (a week): a larger wait overflows the
clocks it is handed to (``select``: OverflowError)."""


MAX_MIN_TIME_S = 60.0
"""The longest ``--min-time`` accepted: a sample of a minute already takes ``--repeats``
minutes per rung; longer ones would be cut short by the loop cap (``kit.timing.MAX_LOOPS``)
and the recorded setting would not be what ran."""


def sample_seconds(text: str) -> float:
    """argparse type: the shortest timed sample, > 0 and at most :data:`MAX_MIN_TIME_S`."""
    value = positive_float(text)
    if value > MAX_MIN_TIME_S:
        raise argparse.ArgumentTypeError(
            f"{value:g} s per sample is above a minute; fix: give at most "
            f"{MAX_MIN_TIME_S:.0f} seconds"
        )
    return value


def seconds_to_wait(text: str) -> float:
    """argparse type: a number of seconds > 0 and at most :data:`MAX_WAIT_S`."""
    value = positive_float(text)
    if value > MAX_WAIT_S:
        raise argparse.ArgumentTypeError(
            f"{value:g} s is above a week; fix: give at most {MAX_WAIT_S:.0f} seconds"
        )
    return value
