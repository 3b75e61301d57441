"""Comparing interpreters: the rung × interpreter grid and one rung's breakdowns on two
interpreters, row by row, from a combined summary (``summary.interpreters``).  Times are ns per
multiply-add (FMA), events per multiply-add; no Textual here."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from overhead_tui.summary.breakdown import FITTED_MARK, BreakdownRow
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.summary.records import ScenarioResult


def layer_ns(result: ScenarioResult) -> dict[str, float]:
    """Modelled ns per multiply-add by layer (the breakdown's rows summed per layer)."""
    rows = result.breakdown.rows if result.breakdown else []
    out: dict[str, float] = {}
    for row in rows:
        if row.ns_per_fma is not None:
            out[row.layer] = out.get(row.layer, 0.0) + float(row.ns_per_fma)
    return out


def biggest_change(
    baseline: ScenarioResult | None, other: ScenarioResult | None
) -> tuple[str, float] | None:
    """The layer whose modelled cost per multiply-add changed most from ``baseline`` to
    ``other``, and the change (ns per FMA, negative = cheaper); None without two breakdowns."""
    if baseline is None or other is None or not baseline.breakdown or not other.breakdown:
        return None
    before, after = layer_ns(baseline), layer_ns(other)
    deltas = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in set(before) | set(after)}
    if not deltas:
        return None
    layer = max(sorted(deltas), key=lambda k: abs(deltas[k]))
    return layer, deltas[layer]


def rung_names(combined: InterpretersSummary) -> list[str]:
    """Every scenario any interpreter ran, in ladder order (rung, then name)."""
    seen: set[tuple[int, str]] = set()
    for entry in combined.interpreters:
        seen.update((s.rung, s.name) for s in entry.scenarios)
    return [name for _, name in sorted(seen)]


@dataclass(frozen=True)
class GridCell:
    """One rung on one interpreter: what the table and the screen's grid show."""

    ran: bool
    """False when the interpreter did not run at all (its ``error``)."""
    result: ScenarioResult | None
    """The rung's result there; None when it was not in that run."""
    gflops: float | None
    """GFLOP/s (None without a speed: failed, skipped)."""
    bytecodes_per_fma: float | None
    """Bytecode instructions executed per multiply-add (None when not counted, and for a
    compiled rung counted on its Python twin: it executes none of them)."""
    change: tuple[str, float] | None
    """Against the baseline: the layer whose modelled ns per multiply-add changed most, and the
    change (negative = cheaper); None for the baseline itself or without two breakdowns."""


def grid_cell(combined: InterpretersSummary, name: str, column: int) -> GridCell:
    """Rung ``name`` on interpreter ``column`` (0 = the baseline)."""
    entry = combined.interpreters[column]
    result = entry.scenario(name)
    has_speed = result is not None and result.has_speed
    events = result.events_per_fma if result is not None else None
    base = combined.interpreters[0].scenario(name)
    return GridCell(
        ran=entry.error is None,
        result=result,
        gflops=result.gflops if has_speed and result is not None else None,
        bytecodes_per_fma=(
            events.bytecodes if has_speed and events and not events.python_twin else None
        ),
        change=biggest_change(base, result) if column else None,
    )


def grid(combined: InterpretersSummary) -> list[tuple[str, list[GridCell]]]:
    """rung × interpreter: ``[(scenario name, [cell per interpreter, baseline first])]``."""
    columns = range(len(combined.interpreters))
    return [
        (name, [grid_cell(combined, name, i) for i in columns]) for name in rung_names(combined)
    ]


SAME_WITHIN = 0.005
"""Counts or unit costs within this fraction of each other count as unchanged."""


def _same(a: float, b: float) -> bool:
    return abs(b - a) <= SAME_WITHIN * max(abs(a), abs(b), 1e-12)


@dataclass(frozen=True)
class LayerDiff:
    """One breakdown row (a layer's cost of one kind of event) on two interpreters, A then B.

    ``events_*``: events per multiply-add (dispatches, floats, loads …); ``unit_*``: modelled ns
    per event (the probe's unit cost as the breakdown used it); ``ns_*``: ns per multiply-add
    (events × unit).  None where that interpreter's breakdown has no such row.
    """

    layer: str
    unit: str
    """``ns/dispatch``, ``ns/float`` …"""
    events_a: float | None
    events_b: float | None
    unit_a: float | None
    unit_b: float | None
    ns_a: float | None
    ns_b: float | None
    below_a: bool = False
    """A's probe measured this unit cost ≤ 0: below its resolution (counted as 0)."""
    below_b: bool = False
    """The same for B."""

    @property
    def delta_ns(self) -> float:
        """B − A in ns per multiply-add (negative: B removed cost)."""
        return (self.ns_b or 0.0) - (self.ns_a or 0.0)

    @property
    def from_events(self) -> float | None:
        """The part of :attr:`delta_ns` due to the count changing (ΔE × unit A); None without
        both rows.  The rest (:attr:`from_unit_cost`) is each event costing more or less."""
        if self.events_a is None or self.events_b is None or self.unit_a is None:
            return None
        return (self.events_b - self.events_a) * self.unit_a

    @property
    def events_change(self) -> str | None:
        """``"fewer"`` / ``"more"`` events per multiply-add on B than on A (beyond
        :data:`SAME_WITHIN`), ``"gone"`` (only A has the row), ``"new"`` (only B), or None."""
        if self.events_a is None or self.events_b is None:
            if self.events_a is None and self.events_b is None:
                return None
            return "gone" if self.events_b is None else "new"
        if _same(self.events_a, self.events_b):
            return None
        return "fewer" if self.events_b < self.events_a else "more"

    @property
    def unit_change(self) -> str | None:
        """``"cheaper"`` / ``"dearer"`` per event on B than on A (beyond :data:`SAME_WITHIN`),
        or None (the same, or not known on both)."""
        if self.unit_a is None or self.unit_b is None or _same(self.unit_a, self.unit_b):
            return None
        if self.below_a or self.below_b:  # a probe below its resolution is no cost to compare
            return None
        return "cheaper" if self.unit_b < self.unit_a else "dearer"

    @property
    def from_unit_cost(self) -> float | None:
        """The part of :attr:`delta_ns` due to the unit cost changing (E B × Δunit)."""
        if self.events_b is None or self.unit_a is None or self.unit_b is None:
            return None
        return self.events_b * (self.unit_b - self.unit_a)


@dataclass(frozen=True)
class BreakdownPair:
    """The breakdowns of one rung on two interpreters, row by row (see :class:`LayerDiff`)."""

    name: str
    rows: list[LayerDiff]
    """In the order of A's breakdown, then rows only B has."""
    measured_a: float | None
    """Measured ns per multiply-add on A (the breakdown's ``measured_ns_per_fma``)."""
    measured_b: float | None
    explained_a: float | None
    """The share of A's measured time the modelled rows explain."""
    explained_b: float | None
    bytecodes_a: float | None
    """Bytecodes executed per multiply-add on A."""
    bytecodes_b: float | None

    @property
    def measured_delta(self) -> float | None:
        """B − A measured ns per multiply-add."""
        if self.measured_a is None or self.measured_b is None:
            return None
        return self.measured_b - self.measured_a

    def biggest(self, limit: int = 3) -> list[LayerDiff]:
        """The ``limit`` rows whose cost per multiply-add changed most (by size), leaving out
        rows where nothing changed."""
        moved = [r for r in self.rows if r.delta_ns or r.events_change or r.unit_change]
        return sorted(moved, key=lambda r: abs(r.delta_ns), reverse=True)[:limit]

    @property
    def has_breakdowns(self) -> bool:
        """Both interpreters have a breakdown for this rung."""
        return self.explained_a is not None and self.explained_b is not None


def _rows_by_key(result: ScenarioResult | None) -> dict[tuple[str, str], BreakdownRow]:
    rows = result.breakdown.rows if result is not None and result.breakdown else []
    out: dict[tuple[str, str], BreakdownRow] = {}
    for row in rows:
        key = (row.layer, row.unit.removesuffix(FITTED_MARK))  # fitted or not: one event
        if key in out:  # the same layer and unit twice: add them up
            merged = out[key]

            def add(a: float | None, b: float | None) -> float | None:
                return a if b is None else (a or 0.0) + b

            out[key] = dataclasses.replace(
                merged,
                events_per_fma=add(merged.events_per_fma, row.events_per_fma),
                ns_per_fma=add(merged.ns_per_fma, row.ns_per_fma),
            )
        else:
            out[key] = row
    return out


def breakdown_pair(combined: InterpretersSummary, name: str, a: int, b: int) -> BreakdownPair:
    """Rung ``name``'s breakdowns on interpreters ``a`` and ``b`` (indices into
    ``combined.interpreters``), row by row with the differences."""
    result_a = combined.interpreters[a].scenario(name)
    result_b = combined.interpreters[b].scenario(name)
    rows_a, rows_b = _rows_by_key(result_a), _rows_by_key(result_b)
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    diffs = []
    for key in keys:
        ra, rb = rows_a.get(key), rows_b.get(key)
        diffs.append(
            LayerDiff(
                layer=key[0],
                unit=key[1],
                events_a=ra.events_per_fma if ra else None,
                events_b=rb.events_per_fma if rb else None,
                unit_a=ra.unit_cost if ra else None,
                unit_b=rb.unit_cost if rb else None,
                ns_a=ra.ns_per_fma if ra else None,
                ns_b=rb.ns_per_fma if rb else None,
                below_a=bool(ra and ra.below_resolution),
                below_b=bool(rb and rb.below_resolution),
            )
        )

    def breakdown_field(result: ScenarioResult | None, key: str) -> float | None:
        if result is None or not result.breakdown:
            return None
        value = getattr(result.breakdown, key)
        return float(value) if value is not None else None

    def bytecodes(result: ScenarioResult | None) -> float | None:
        events = result.events_per_fma if result is not None else None
        return events.bytecodes if events else None

    return BreakdownPair(
        name=name,
        rows=diffs,
        measured_a=breakdown_field(result_a, "measured_ns_per_fma"),
        measured_b=breakdown_field(result_b, "measured_ns_per_fma"),
        explained_a=breakdown_field(result_a, "explained"),
        explained_b=breakdown_field(result_b, "explained"),
        bytecodes_a=bytecodes(result_a),
        bytecodes_b=bytecodes(result_b),
    )
