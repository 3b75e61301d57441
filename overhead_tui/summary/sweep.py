"""A size sweep as typed records: :class:`SweepRecord` (``RunSummary.sweep``) and its points.

JSON: ``{"sizes" [n], "budget_s" (s), "dtype", "points" [point], "stopped" {scenario:
reason}}``, a point ``{"scenario", "n", "status", "median_s" (s), "gflops" (GFLOP/s),
"samples_s" [s per call], "error", "wall_s" (s), "warnings" [str]}``: the field names are the
keys, so :meth:`SweepRecord.to_json` is ``dataclasses.asdict``.  The sweep appends points and
stop reasons to the record's lists as it runs.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any


@dataclass(frozen=True)
class SweepPoint:
    """One (scenario, n) point; speeds only when its status is ok."""

    scenario: str
    n: int
    """Matrix order of this point."""
    status: str
    """The point's scenario status (``ok``, ``timeout``, ...)."""
    median_s: float | None = None
    """Median time per call (s)."""
    gflops: float | None = None
    samples_s: list[float] = field(default_factory=list)
    """Timed samples (s per call)."""
    error: str | None = None
    wall_s: float | None = None
    warnings: list[str] = field(default_factory=list)
    """The timing's warnings (noise, CPU contention): an unstable point."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SweepPoint:
        """From a point of any version (unknown keys are dropped; missing lists are empty)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass(frozen=True)
class SweepRecord:
    """The summary's top-level ``sweep``: sizes, budget (s), dtype, points, stop reasons."""

    sizes: list[int]
    budget_s: float
    dtype: str
    points: list[SweepPoint] = field(default_factory=list)
    stopped: dict[str, str] = field(default_factory=dict)
    """Why a scenario stopped before the last size (``budget``, ``max_size``, a status)."""

    def to_json(self) -> dict[str, Any]:
        """The JSON stored in ``RunSummary.sweep``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SweepRecord:
        """From ``RunSummary.sweep`` of any version."""
        return cls(
            sizes=list(data.get("sizes", [])),
            budget_s=data.get("budget_s", 0.0),
            dtype=str(data.get("dtype", "")),
            points=[SweepPoint.from_json(p) for p in data.get("points", [])],
            stopped=dict(data.get("stopped", {})),
        )
