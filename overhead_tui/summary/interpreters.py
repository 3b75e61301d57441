"""The combined summary of ``overhead-tui interpreters``: the same ladder on several Pythons.

``{"kind": "interpreters", "schema_version": 1, "created", "settings",
"interpreters": [{"python": {implementation, version, executable, free_threaded, jit},
"run_dir", "provision", "error", "scenarios": [the usual per-scenario records]}]}``; the first
interpreter is the tool's own (the baseline).  ``interpreters.schema.json`` beside this file is
its JSON Schema; each ``run_dir`` holds that interpreter's ordinary run (``summary.json``), so
``compare`` works between any two of them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from overhead_tui.summary.breakdown import BreakdownRow
from overhead_tui.summary.codec import from_json, to_json
from overhead_tui.summary.records import MAX_SUMMARY_BYTES, ScenarioResult, Settings
from overhead_tui.summary.validation import SummaryError

SCHEMA_VERSION = 1

JIT_LABELS = {"enabled": "jit on", "disabled": "jit off"}
"""Column label suffix of each state of the experimental JIT."""


@dataclass(frozen=True)
class PythonInfo:
    """What an interpreter is (an entry's ``python``): the run's interpreter facts
    (``records.PythonInfo``) plus how it was built."""

    implementation: str
    """``CPython``, ``PyPy`` ..."""
    version: str
    """``3.12.1``."""
    executable: str
    free_threaded: bool
    """A free-threaded build (``Py_GIL_DISABLED``) running without the GIL."""
    jit: str | None
    """The experimental JIT: ``"enabled"``, ``"disabled"`` (built with it, off), or None
    (not built with it)."""

    @property
    def label(self) -> str:
        """A short column title: ``CPython 3.13.0``, ``+ free-threaded``, ``+ jit on`` /
        ``jit off`` (a build with the experimental JIT)."""
        parts = [f"{self.implementation} {self.version}"]
        if self.free_threaded:
            parts.append("free-threaded")
        if self.jit in JIT_LABELS:
            parts.append(JIT_LABELS[self.jit])
        return " ".join(parts)


@dataclass(frozen=True)
class Provisioned:
    """The environment the tool made for an interpreter (``engine.provision``; an entry's
    ``provision``).  The package maps fill in while it is made."""

    python: str
    """The venv's interpreter (the workers run it)."""
    folder: str
    installed: dict[str, str] = field(default_factory=dict)
    """package → version installed."""
    nearest: dict[str, str] = field(default_factory=dict)
    """package → the tool's version, where another (``installed``) stands in for it."""
    missing: dict[str, str] = field(default_factory=dict)
    """package → why it could not be installed (its rungs are skipped there)."""
    reused: bool = False
    """True when the stamp said the folder was ready (no pip call)."""


@dataclass(frozen=True)
class InterpreterRun:
    """One interpreter's ladder."""

    python: PythonInfo
    run_dir: str | None = None
    scenarios: list[ScenarioResult] = field(default_factory=list)
    provision: Provisioned | None = None
    """The environment the tool made for it, if any."""
    error: str | None = None
    """Why it did not run (cannot be provisioned or checked); None when it ran."""

    @property
    def label(self) -> str:
        """``CPython 3.12.1`` (+ ``free-threaded``, ``jit on`` / ``jit off``)."""
        return self.python.label

    def scenario(self, name: str) -> ScenarioResult | None:
        """The result of ``name`` on this interpreter, if it ran."""
        return next((s for s in self.scenarios if s.name == name), None)


@dataclass(frozen=True)
class InterpretersSummary:
    """Every interpreter's ladder, the baseline first, and the settings they all ran with
    (``settings.python`` is per interpreter: not stored)."""

    interpreters: list[InterpreterRun] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    created: str = ""
    kind: str = "interpreters"
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring)."""
        data: dict[str, Any] = to_json(self)
        del data["settings"]["python"]
        return data

    def dumps(self) -> str:
        """Sorted, indented JSON text ending in a newline."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file in the same folder, then rename)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".interpreters-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.dumps())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)

    @classmethod
    def from_json(cls, data: Any) -> InterpretersSummary:
        """Build from parsed JSON after checking it against the schema.

        Raises:
            SummaryError: not a combined summary this tool reads.
        """
        validate(data)
        return from_json(cls, data)

    @classmethod
    def load(cls, path: Path) -> InterpretersSummary:
        """Read a combined summary file.

        Raises:
            SummaryError: missing, not JSON, or not a combined summary.
        """
        try:
            data = json.loads(Path(path).read_bytes())
        except OSError as exc:
            raise SummaryError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise SummaryError(f"{path} is not JSON ({exc})") from None
        return cls.from_json(data)


def is_interpreters_summary(path: Path) -> bool:
    """True when ``path`` is a JSON file saying ``"kind": "interpreters"`` (a combined summary,
    not a run's summary.json); False for anything else, unreadable files included."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size > MAX_SUMMARY_BYTES:
        return False
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("kind") == "interpreters"


@cache
def schema() -> dict[str, Any]:
    """The combined summary's JSON Schema (``interpreters.schema.json``)."""
    text = resources.files(__package__).joinpath("interpreters.schema.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def validate(data: Any) -> None:
    """Check ``data`` against :func:`schema`.

    Raises:
        SummaryError: the first problem, with where it is.
    """
    import jsonschema

    if not isinstance(data, dict) or data.get("kind") != "interpreters":
        raise SummaryError("not an overhead-tui interpreters summary (no kind: interpreters)")
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SummaryError(f"invalid interpreters summary at {where}: {error.message}")


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
    """Bytecode instructions executed per multiply-add (None when not counted)."""
    change: tuple[str, float] | None
    """Against the baseline: the layer whose modelled ns per multiply-add changed most, and the
    change (negative = cheaper); None for the baseline itself or without two breakdowns."""


def grid_cell(combined: InterpretersSummary, name: str, column: int) -> GridCell:
    """Rung ``name`` on interpreter ``column`` (0 = the baseline)."""
    entry = combined.interpreters[column]
    result = entry.scenario(name)
    has_speed = result is not None and result.has_speed
    events = (result.events_per_fma or {}) if result is not None else {}
    base = combined.interpreters[0].scenario(name)
    return GridCell(
        ran=entry.error is None,
        result=result,
        gflops=result.gflops if has_speed and result is not None else None,
        bytecodes_per_fma=events.get("bytecodes") if has_speed else None,
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
        if None in (self.events_a, self.events_b, self.unit_a):
            return None
        return (self.events_b - self.events_a) * self.unit_a  # type: ignore[operator]

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
        if None in (self.events_b, self.unit_a, self.unit_b):
            return None
        return self.events_b * (self.unit_b - self.unit_a)  # type: ignore[operator]


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
        key = (row.layer, row.unit)
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
        return ((result.events_per_fma or {}) if result is not None else {}).get("bytecodes")

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
