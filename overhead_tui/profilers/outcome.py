"""What a profiled worker run reported, shared by the backends."""

from __future__ import annotations

from overhead_tui.engine.spawn import CommandResult
from overhead_tui.worker.protocol import Profiled


def profiled_per_call_s(result: CommandResult) -> float | None:
    """The profiled worker's time per call (s), from its ``profiled`` event (None: none)."""
    profiled = result.message(Profiled)
    return profiled.per_call_s if profiled else None
