"""The run directory's logs: ``log.jsonl`` lines written, worker lines parsed, and the
runner's outcome line appended to each scenario's ``logs/NAME.stderr.txt``."""

from __future__ import annotations

import contextlib
import json
import signal
import time
from pathlib import Path
from typing import IO

from overhead_tui.worker.protocol import Message, ProtocolError, decode, to_dict


def log_line(log: IO[str], kind: str, **fields: object) -> None:
    """Append one line ``{"kind": kind, **fields, "t": now}`` to a run's ``log.jsonl``
    (keys sorted) and flush it: the runner's and the sweep's own lines, and the workers'
    messages (:func:`log_message`)."""
    log.write(json.dumps({"t": time.time(), "kind": kind, **fields}, sort_keys=True) + "\n")
    log.flush()


def log_message(log: IO[str], message: Message, name: str) -> None:
    """Append a worker's message to ``log.jsonl``: its JSON (``protocol.to_dict``) with the
    scenario's ``name``."""
    log_line(log, **{**to_dict(message), "name": name})


def parse_message_line(line: bytes | str) -> Message | None:
    """One line of a worker's channel as its message, or None when it is none (not JSON, an
    unknown kind, a field of the wrong type: see ``protocol.decode``)."""
    try:
        return decode(line)
    except ProtocolError:
        return None


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


LOG_KEEP_BYTES = 1 << 20
"""Of a worker's stderr log beyond twice this, the first and the last MiB are kept (a kernel
that floods stderr wrote 256 MiB into the run folder; what explains a failure is at its
start and its end)."""


def cap_log(path: Path, keep: int = LOG_KEEP_BYTES) -> int:
    """Cut the middle out of the log at ``path`` when it holds more than ``2 * keep`` bytes,
    leaving its first and last ``keep`` bytes and a line saying what was cut; return the
    bytes cut (0: left as it was, or unreadable)."""
    try:
        size = path.stat().st_size
        if size <= 2 * keep:
            return 0
        with open(path, "r+b") as fh:
            fh.seek(size - keep)
            tail = fh.read()
            cut = size - 2 * keep
            note = (
                f"\n[overhead-tui: {cut:,} bytes of this worker's stderr cut here; "
                f"{size:,} written in all]\n"
            ).encode()
            fh.seek(keep)
            fh.write(note + tail)
            fh.truncate()
    except OSError:
        return 0
    return cut
