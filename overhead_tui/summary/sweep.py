"""A size sweep as typed records: :class:`SweepRecord` (``RunSummary.sweep``) and its points.

JSON: ``{"sizes" [n], "budget_s" (s), "dtype", "points" [point], "stopped" {scenario:
reason}}``, a point ``{"scenario", "n", "status", "median_s" (s), "gflops" (GFLOP/s),
"samples_s" [s per call], "error", "wall_s" (s), "warnings" [str]}``: the field names are the
keys, so :meth:`SweepRecord.to_json` is ``dataclasses.asdict``.  The sweep appends points and
stop reasons to the record's lists as it runs.  :class:`BudgetedRecord` and
:class:`BudgetedPoint` are what every budgeted sweep shares (the batch sweep's records,
``summary.shapes``, extend them too).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Self

from overhead_tui.summary.vocabulary import Status


@dataclass(frozen=True, kw_only=True)
class BudgetedPoint:
    """One worker run of a scenario at one point of a budgeted sweep (``sweeps.budgeted``: a
    size sweep's n, a batch sweep's m): its status and, when ok, its speed.  Fields are
    keywords: each kind of point adds its own coordinate."""

    scenario: str
    status: Status
    """The point's scenario status (``ok``, ``timeout``, ...)."""
    median_s: float | None = None
    """Median time per call (s)."""
    gflops: float | None = None
    """GFLOP/s."""
    error: str | None = None
    """Why the point has no speed (its status's reason), else None."""
    wall_s: float | None = None
    """Wall time of the point's whole worker run (s)."""
    dtype: str | None = None
    """The dtype the point computed: the sweep's, or a lower-precision rung's own
    (``engine.plan.rung_dtype``); None in files written before it was recorded (the sweep's)."""
    warnings: list[str] = field(default_factory=list)
    """The timing's warnings (noise, CPU contention): an unstable point."""

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """From a point of any version (unknown keys are dropped; missing lists are empty)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if f.name in data})


@dataclass(frozen=True, kw_only=True)
class SweepPoint(BudgetedPoint):
    """One (scenario, n) point of a size sweep; speeds and samples only when its status is ok."""

    n: int
    """Matrix order of this point."""
    samples_s: list[float] = field(default_factory=list)
    """Timed samples (s per call)."""


@dataclass(frozen=True, kw_only=True)
class BudgetedRecord:
    """What a budgeted sweep stores in the summary: dtype, total budget (s), its points in the
    order they were measured, and why a scenario stopped before its last point.  Fields are
    keywords: each kind of sweep adds its own (:class:`SweepRecord`,
    ``summary.shapes.ShapesRecord``)."""

    dtype: str
    budget_s: float | None = None
    points: list[BudgetedPoint] = field(default_factory=list)
    stopped: dict[str, str] = field(default_factory=dict)
    """Why a scenario stopped early (``budget``, ``max_size``, a status)."""

    POINT: ClassVar[type[BudgetedPoint]] = BudgetedPoint
    """The record of one of its points."""

    def to_json(self) -> dict[str, Any]:
        """The sweep's JSON in the summary (a point's ``dtype`` only where it was recorded)."""
        data = asdict(self)
        for point in data.get("points", []):
            if point.get("dtype") is None:
                del point["dtype"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """From the sweep's JSON of any version (keys it does not know are ignored, missing
        ones take their defaults)."""
        known = [f.name for f in fields(cls) if f.name in data]
        return cls(**{name: cls._load(name, data[name]) for name in known})

    @classmethod
    def _load(cls, name: str, value: Any) -> Any:
        """The field ``name`` from its JSON ``value`` (a copy; points as records)."""
        if name == "points":
            return [cls.POINT.from_json(p) for p in value]
        return type(value)(value) if isinstance(value, (list, dict)) else value


@dataclass(frozen=True, kw_only=True)
class SweepRecord(BudgetedRecord):
    """The summary's top-level ``sweep``: sizes, budget (s), dtype, points, stop reasons."""

    sizes: list[int]
    points: list[SweepPoint] = field(default_factory=list)  # type: ignore[assignment]
    POINT: ClassVar[type[BudgetedPoint]] = SweepPoint
