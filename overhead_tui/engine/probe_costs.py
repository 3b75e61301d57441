"""How long each probe took when last measured on this machine, kept for the next
measuring's progress line ("probe 3/12 boxing, ~40 s left").
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from overhead_tui.summary.codec import write_atomic

if TYPE_CHECKING:
    from overhead_tui.plugins.probes import ProbeSpec


def read_costs(path: Path) -> dict[str, float]:
    """{probe: seconds it took when last measured here} from ``path``; {} when never measured
    or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: float(v) for k, v in data.items() if isinstance(v, int | float) and v > 0}


def write_costs(costs: dict[str, float], path: Path) -> None:
    """Keep each probe's seconds in ``path`` for the next estimate (never an error: it is
    only a guess)."""
    with contextlib.suppress(OSError):
        write_atomic(path, json.dumps(costs, sort_keys=True) + "\n")


def time_left(
    pending: list[ProbeSpec], costs: dict[str, float], spent: dict[str, float]
) -> float | None:
    """Seconds the ``pending`` probes will take: each one's time when last measured here
    (``costs``), else the mean of those measured so far in this run (``spent``); None before
    anything is known."""
    mean = sum(spent.values()) / len(spent) if spent else None
    guesses = [costs.get(p.name, mean) for p in pending]
    return None if None in guesses else sum(g for g in guesses if g is not None)
