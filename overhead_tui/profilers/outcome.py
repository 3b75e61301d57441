"""What a profiled worker run reported, shared by the backends: its time per call, why it
failed (judged by the worker's own messages, not the profiler's exit), and running one that
writes its output to a file."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from overhead_tui.engine.spawn import Cancel, CommandResult, run_command
from overhead_tui.worker.protocol import Message, Profiled

NO_SCALENE_TIME = "Scalene recorded no time in the scenario's source"
NO_PYSPY_SAMPLES = "py-spy wrote no samples of the kernel"
NOTHING_RECORDED = frozenset({NO_SCALENE_TIME, NO_PYSPY_SAMPLES})
"""The reasons of a backend that ran the worker to its end and recorded nothing of the kernel:
on a rung whose time runs in other threads, that is the backend's blind spot
(``profile.BLIND``); any other failure (a missing file, a crash, a timeout) stays a failure."""


def profiled_per_call_s(result: CommandResult) -> float | None:
    """The profiled worker's time per call (s), from its ``profiled`` message (None: none)."""
    profiled = result.message(Profiled)
    return profiled.per_call_s if profiled else None


def run_failure(
    result: CommandResult, profiler: str, finished: type[Message] | None = Profiled
) -> str | None:
    """Why a worker run under ``profiler`` failed, or None: it timed out (the group was
    killed), the scenario reported an error, or the worker never sent ``finished`` (then the
    last line of stderr says what happened; None: the profiler's own output decides)."""
    if result.timed_out:
        return f"timed out; {profiler} and the worker were killed"
    if result.worker_error:
        return f"the scenario failed: {result.worker_error}"
    if finished is not None and result.message(finished) is None:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return f"the worker did not finish ({tail[:200]})"
    return None


def run_writing(
    profiler: str,
    output: str,
    argv: Callable[[Path], list[str]],
    timeout_s: float,
    env: dict[str, str],
    cancel: Cancel | None,
) -> tuple[CommandResult, str]:
    """Run the command ``argv(path)`` of a profiler that writes its output to ``path`` (a
    file named ``output`` in a temporary folder of its own, removed afterwards); its result
    and the text it wrote ("" when none)."""
    with tempfile.TemporaryDirectory(prefix=f"overhead-{profiler}-") as tmp:
        path = Path(tmp) / output
        result = run_command(argv(path), timeout_s, env, cancel)
        text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
        return result, text
