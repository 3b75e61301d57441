"""The run directory's logs: ``events.jsonl`` lines written, worker lines parsed, and the
runner's outcome line appended to each scenario's ``logs/NAME.stderr.txt``."""

from __future__ import annotations

import contextlib
import json
import signal
import time
from pathlib import Path
from typing import IO, Any


def log_event(log: IO[str], event: dict[str, Any]) -> None:
    """Append ``event`` with a timestamp to a run's ``events.jsonl`` and flush it."""
    log.write(json.dumps({"t": time.time(), **event}, sort_keys=True) + "\n")
    log.flush()


def parse_event_line(line: bytes) -> dict[str, Any] | None:
    """One JSON line of a worker's event channel as a dict, or None when it is not an event."""
    try:
        event = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return event if isinstance(event, dict) and "event" in event else None


WORKER_END_LINES = ("worker finished", "worker ended")
"""How the worker's own last line in its log begins (not a crash detail)."""


def outcome_line(status: str, code: int | None, timed_out: bool, cancelled: bool = False) -> str:
    """How the worker ended as the runner saw it: ``runner: status crashed; worker killed by
    SIGSEGV`` (``code``: its exit code, negative for a signal; timed out or cancelled, then
    its group was killed)."""
    if code is None:
        how = "worker never started"
    elif code < 0:
        try:
            how = f"worker killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"worker killed by signal {-code}"
    else:
        how = f"worker exited with code {code}"
    if timed_out:
        how = f"timed out, process group killed; {how}"
    elif cancelled:
        how = f"cancelled, process group killed; {how}"
    return f"runner: status {status}; {how}"


def append_outcome(path: Path, line: str) -> None:
    """Append ``line`` (see :func:`outcome_line`) to the scenario's log; a log that cannot be
    written is no reason to lose the result."""
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
