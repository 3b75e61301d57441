"""A batch sweep as typed records: :class:`ShapesRecord` (``RunSummary.shapes``) and its parts.

A batch sweep (``overhead-tui shapes``) multiplies A (m×k) by a fixed B (k×n) for growing
batches m.  JSON: ``{"k", "n", "dtype", "batches" [m], "budget_s" (s), "size_reason",
"points" [point], "crossing" {scenario: {"measured_m", "predicted_m", "modelled_m"}}, "roofs"
{scenario: {"threads", "peak_gflops" (GFLOP/s), "bandwidth_gbs" (GB/s), "packing_gbs" (GB/s),
"micro_kernel_rows"}}, "stopped" {scenario:
reason}}``, a point ``{"scenario", "m", "status", "median_s" (s), "gflops" (GFLOP/s),
"intensity" (flop/byte), "attainable_gflops" (GFLOP/s), "bound", "error", "wall_s" (s),
"warnings" [str]}``: the field names are the keys, so :meth:`ShapesRecord.to_json` is
``dataclasses.asdict``.  The sweep appends points and stop reasons as it runs; the figures
derived from them (intensity, attainable, bound, crossings) are filled in by
``analysis.shapes.recompute``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from overhead_tui.summary.sweep import BudgetedPoint, BudgetedRecord
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE


@dataclass(frozen=True, kw_only=True)
class ShapePoint(BudgetedPoint):
    """One measured (scenario, m) of a batch sweep, placed on the scenario's roofline."""

    m: int
    """The batch: rows of A and C."""
    intensity: float = 0.0
    """Arithmetic intensity at this m (flop/byte)."""
    attainable_gflops: float | None = None
    """min(peak, bandwidth × intensity) with the scenario's roofs (GFLOP/s)."""
    bound: str | None = None
    """``memory`` or ``compute``: the roof that binds at this intensity (None: no roofs)."""


@dataclass(frozen=True)
class Roofs:
    """A scenario's roofs: the measured peak (GFLOP/s) and bandwidth (GB/s) on its threads, and
    what a BLAS-style call pays besides (``analysis.shapes.modelled_crossing``): packing B
    (GB/s read + written, on its threads) and the micro-kernel's rows (MR)."""

    threads: str
    """``all cores`` (a rung with the ``parallel`` layer) or ``one core``."""
    peak_gflops: float | None
    bandwidth_gbs: float | None
    packing_gbs: float | None = None
    micro_kernel_rows: int | None = None


NO_ROOFS = Roofs("", None, None)
"""The roofs of a scenario the sweep has none for."""


@dataclass(frozen=True)
class Crossing:
    """Where a scenario's curve leaves the bandwidth slope: ``measured_m`` (a measured batch,
    None if it never left it), ``predicted_m`` (from the ridge point; None if unknown) and
    ``modelled_m`` (the batch of the sweep at which a curve modelled from packing B, the
    micro-kernel's rows and the peak leaves it; None without those costs)."""

    measured_m: int | None
    predicted_m: float | None
    modelled_m: int | None = None


@dataclass(frozen=True, kw_only=True)
class ShapesRecord(BudgetedRecord):
    """The summary's top-level ``shapes``: B's shape (k × n), dtype, batches, budget (s), the
    points, and per scenario its roofs, its crossing and why it stopped."""

    k: int
    n: int
    batches: list[int] = field(default_factory=list)
    size_reason: str = ""
    """Why B has this size (the cache sizes it must exceed)."""
    points: list[ShapePoint] = field(default_factory=list)  # type: ignore[assignment]
    crossing: dict[str, Crossing] = field(default_factory=dict)
    roofs: dict[str, Roofs] = field(default_factory=dict)
    POINT: ClassVar[type[BudgetedPoint]] = ShapePoint

    @classmethod
    def _load(cls, name: str, value: Any) -> Any:
        if name == "crossing":
            return {
                k: Crossing(c.get("measured_m"), c.get("predicted_m"), c.get("modelled_m"))
                for k, c in value.items()
            }
        if name == "roofs":
            return {
                k: Roofs(
                    r.get("threads", ""),
                    r.get("peak_gflops"),
                    r.get("bandwidth_gbs"),
                    r.get("packing_gbs"),
                    r.get("micro_kernel_rows"),
                )
                for k, r in value.items()
            }
        return super()._load(name, value)

    OPTIONAL_KEYS: ClassVar[dict[str, tuple[str, ...]]] = {
        "crossing": ("modelled_m",),
        "roofs": ("packing_gbs", "micro_kernel_rows"),
    }
    """Keys newer than the first files, left out while they are None (older files round-trip
    unchanged)."""

    def to_json(self) -> dict[str, Any]:
        data = super().to_json()
        for part, keys in self.OPTIONAL_KEYS.items():
            for entry in data.get(part, {}).values():
                for key in keys:
                    if entry.get(key) is None:
                        entry.pop(key, None)
        return data

    @property
    def itemsize(self) -> int:
        """Bytes per element of ``dtype``."""
        return DTYPE_ITEMSIZE.get(self.dtype, 8)

    def roofs_of(self, scenario: str) -> Roofs:
        """The scenario's roofs (:data:`NO_ROOFS` when the sweep has none for it)."""
        return self.roofs.get(scenario) or NO_ROOFS

    def scenarios(self) -> list[str]:
        """Scenario names in the order they were swept."""
        names = [p.scenario for p in self.points]
        return list(dict.fromkeys([*self.roofs, *names, *self.stopped]))

    def curve(self, scenario: str) -> list[tuple[int, float]]:
        """(m, GFLOP/s) of a scenario's ok points, by increasing m."""
        return sorted(
            (p.m, p.gflops)
            for p in self.points
            if p.scenario == scenario and p.status == "ok" and p.gflops
        )
