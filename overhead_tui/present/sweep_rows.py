"""A size sweep as rows for the views (CLI table, Markdown, the Sweep screen)."""

from __future__ import annotations

from dataclasses import dataclass

from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.sweep import SweepPoint
from overhead_tui.summary.units import fmt_gflops


@dataclass(frozen=True)
class SweepRow:
    """One scenario of a sweep, for tables and plots: its points by n and why it stopped."""

    scenario: str
    points: dict[int, SweepPoint]
    """Point records (:func:`point_record`) by matrix order n."""
    stopped: str | None
    """Reason it stopped before the last size (``budget``, ``max_size``, a status), or None."""
    dtype: str | None = None
    """Its points' dtype where it is not the sweep's (a rung at its own precision), else None."""

    @property
    def label(self) -> str:
        """Its name, with its dtype where that is not the sweep's: ``numpy_matmul_own_loops
        (float16)``."""
        return f"{self.scenario} ({self.dtype})" if self.dtype else self.scenario

    def curve(self) -> tuple[list[int], list[float]]:
        """(n, GFLOP/s) of its ok points, by increasing n."""
        ok = [
            (n, p.gflops)
            for n, p in sorted(self.points.items())
            if p.status == "ok" and p.gflops is not None
        ]
        return [n for n, _ in ok], [g for _, g in ok]


def sweep_rows(summary: RunSummary) -> list[SweepRow]:
    """The sweep of ``summary`` by scenario, in sweep order (empty without a sweep)."""
    sweep = summary.sweep
    if sweep is None:
        return []
    points, stopped = sweep.points, sweep.stopped
    names = list(
        dict.fromkeys([*summary.settings.scenarios, *(p.scenario for p in points), *stopped])
    )
    rows = []
    for name in names:
        own = {p.n: p for p in points if p.scenario == name}
        other = next((p.dtype for p in own.values() if p.dtype not in (None, sweep.dtype)), None)
        rows.append(SweepRow(name, own, stopped.get(name), other))
    return rows


def point_cell(point: SweepPoint | None, unstable: str = " !") -> str:
    """A point as a table cell: GFLOP/s (``unstable`` appended when the timing carries
    warnings), its status if it failed, or ``—`` when the size was not run."""
    if point is None:
        return "—"
    if point.status != "ok":
        return str(point.status)
    return fmt_gflops(point.gflops) + (unstable if point.warnings else "")
