"""Start worker processes (their command and environment) and run commands with a timeout that
kills the whole process group, output capped.  Used by the runner, the probes and the
profilers alike.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import overhead_tui

DRAIN_S = 5.0
"""Seconds to collect output after a timed-out profiler's process group was killed."""
OUTPUT_CAP_BYTES = 1_000_000
"""Largest stdout or stderr kept from a profiler run (bytes); the rest is dropped."""


@dataclass
class CommandResult:
    """What a profiled run produced."""

    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str
    events: list[dict[str, Any]] = field(default_factory=list)
    """The worker's JSON-line events found in stdout (a profiler may print there too)."""

    def event(self, name: str) -> dict[str, Any] | None:
        """The last event called ``name``, if any."""
        return next((e for e in reversed(self.events) if e.get("event") == name), None)

    @property
    def worker_error(self) -> str | None:
        """The worker's own error message, if it reported one."""
        error = self.event("error")
        return str(error.get("message")) if error else None


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def worker_command(python: str, spec: dict[str, Any]) -> list[str]:
    """The argv of a worker for ``spec`` (see ``engine.worker``)."""
    return [python, "-m", "overhead_tui.engine.worker", json.dumps(spec)]


def worker_env() -> dict[str, str]:
    """The environment for a worker: this very package importable from any interpreter.

    ``python -m`` puts the current directory first on ``sys.path``, so a folder holding another
    checkout (or anything named ``overhead_tui``) would shadow this package in the worker;
    ``PYTHONSAFEPATH=1`` (Python ≥ 3.11) keeps it off, and ``PYTHONPATH`` names our copy.
    """
    env = dict(os.environ)
    parent = str(Path(overhead_tui.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [parent, env.get("PYTHONPATH")]))
    env["PYTHONSAFEPATH"] = "1"
    return env


def run_command(
    argv: list[str], timeout_s: float, env: dict[str, str] | None = None
) -> CommandResult:
    """Run ``argv`` in a new session; on timeout SIGKILL its whole process group.

    Never raises for the command's own failure: a missing executable gives returncode 127.
    """
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        return CommandResult(127, False, "", str(exc))
    timed_out = False
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(process)
        try:  # a child that left the group may still hold the pipes: do not wait for it
            out, err = process.communicate(timeout=DRAIN_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = b"", b""
    except BaseException:  # Ctrl-C or SIGTERM: take the profiler and the worker down too
        _kill_group(process)
        process.kill()
        raise
    stdout = out[:OUTPUT_CAP_BYTES].decode("utf-8", "replace")
    stderr = err[-OUTPUT_CAP_BYTES:].decode("utf-8", "replace")
    events = []
    for line in stdout.splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            event = json.loads(line)
            if isinstance(event, dict) and "event" in event:
                events.append(event)
    return CommandResult(process.returncode, timed_out, stdout, stderr, events)
