"""The model breakdown of each scenario and the waterfall of the ladder.

Model (per multiply-add, all times in ns):

* Interpreted work, from exact event counts × probe unit costs:
  ``interpreter_dispatch`` = dispatches × ns/dispatch (probe ``dispatch``);
  ``boxing`` = floats created × ns/float (``boxing``; the float arithmetic itself is inside
  this cost); ``container_access`` = specialised list/tuple subscript loads × ns/load +
  stores × ns/store (``container_access``); ``call_overhead`` = Python calls × ns/call +
  non-numpy builtin calls × ns/builtin call (``call_overhead``); ``library_layers`` =
  (numpy calls + unspecialised arithmetic/subscript instructions, which in a rung carrying
  library layers act on numpy objects) × the fixed cost of a numpy call (``numpy_call``); in a
  rung that also carries ``scalar_compute`` (an element-wise loop) the unspecialised
  instructions act on numpy scalars and are priced at the probe's ``scalar_op_ns``.
* Compiled work: flops at the measured compute peak — one core, or all cores for a rung that
  carries ``parallel`` — is ``dense_kernel`` if the rung carries it, else ``simd_compute``.
  The peak is the best of the ``simd_fma`` probe and the dense kernels measured in this run.
* What the model does not explain (measured − modelled) goes to the first layer among
  ``scalar_compute``, ``memory``, ``parallel`` that the rung carries and that has no modelled
  time, when the rung executes (almost) no interpreted instructions; otherwise to ``other``,
  reported even when negative.  ``explained`` is the modelled fraction only; a labelled rest
  is reported apart as ``labelled_rest`` (a label from the rung's declaration, not a model).

Limits: unit costs are averages of microbenchmarks (a real loop's instruction mix, branch
prediction and cache state differ); floats created inside unspecialised instructions (an
``array.array`` read) are not counted (see ``counting.opcodes``); dynamic type dispatch has no
probe of its own, so its cost ends in ``other``.

Uncertainty (``analysis.uncertainty``): every unit cost carries an interval from its probe's
per-process values, the rung's time the middle half of its samples; rows, layers,
``explained`` and ``other`` carry the propagated bounds (``intervals``, ``explained_interval``).

Like with like: a rung that carries ``interpreter_dispatch`` measures the probe's reference
loop (``y = x is z``) in its own worker right before and after its samples
(``reference_dispatch_ns``).  The interpreted unit costs are then scaled by (ns/dispatch now) /
(the dispatch probe's value): the probes give the *ratios* between costs, the rung's own worker
the machine's speed of the moment (``scale`` in the breakdown).

Waterfall: the ok rungs in rung order; between consecutive rungs, the time per flop saved is
credited to the layers the later rung removes, in proportion to their modelled shares in the
earlier rung (equally when together they are under 5 % of it).  The speedups multiply to the
measured span exactly.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field, replace
from typing import Any

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.agreement import attach_agreement
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.vocabulary import GENERIC_OPS

LIST_LOADS = frozenset({"BINARY_SUBSCR_LIST_INT", "BINARY_SUBSCR_TUPLE_INT"})
LIST_STORES = frozenset({"STORE_SUBSCR_LIST_INT"})
INTERPRETED_THRESHOLD = 0.05
"""Dispatches per multiply-add below which a rung counts as compiled (no interpreter work)."""
RESIDUAL_LAYERS = ("scalar_compute", "memory", "parallel")
INTERPRETER_COSTS = (
    "dispatch_ns",
    "boxing_ns",
    "load_ns",
    "store_ns",
    "array_load_ns",
    "array_store_ns",
    "call_ns",
    "builtin_ns",
    "numpy_scalar_ns",
    "numpy_call_ns",
)
"""Unit costs paid in the eval loop: scaled by the rung's own reference dispatch timing."""


@dataclass(frozen=True)
class UnitCosts:
    """Unit costs from the probes (ns, except GFLOP/s and µs as named)."""

    dispatch_ns: float | None = None
    boxing_ns: float | None = None
    load_ns: float | None = None
    store_ns: float | None = None
    array_load_ns: float | None = None
    """A read from an ``array.array`` beyond its dispatch, the float it creates included."""
    array_store_ns: float | None = None
    call_ns: float | None = None
    builtin_ns: float | None = None
    numpy_call_ns: float | None = None
    numpy_scalar_ns: float | None = None
    peak_one_gflops: float | None = None
    peak_all_gflops: float | None = None
    intervals: dict[str, unc.Interval] = field(default_factory=dict)
    """Field name -> [low, high] of that unit cost (clamped at 0), see ``analysis.uncertainty``."""
    below_resolution: frozenset[str] = frozenset()
    """Fields whose probe measured ≤ 0 (counted as 0: below the probe's resolution)."""

    def interval(self, name: str) -> unc.Interval | None:
        """The interval of the unit cost ``name`` (a field), or the point value twice."""
        value = getattr(self, name)
        if value is None:
            return None
        return self.intervals.get(name, (value, value))

    def scaled(self, factor: float, factor_interval: unc.Interval) -> UnitCosts:
        """Interpreted unit costs × ``factor`` (the machine's speed of the moment over the
        probes'); intervals × ``factor_interval``.  Peaks and numpy costs stay."""
        changed: dict[str, Any] = {}
        intervals = dict(self.intervals)
        for name in INTERPRETER_COSTS:
            value = getattr(self, name)
            if value is None:
                continue
            changed[name] = value * factor
            low, high = self.interval(name) or (value, value)
            intervals[name] = (low * factor_interval[0], high * factor_interval[1])
        return replace(self, intervals=intervals, **changed)

    @classmethod
    def from_probes(cls, probes: dict[str, Any], summary: RunSummary | None = None) -> UnitCosts:
        """Read unit costs from probe results (dicts or ``ProbeResult``), and dense peaks."""

        intervals: dict[str, unc.Interval] = {}
        below: set[str] = set()

        def get(probe: Any, key: str) -> Any:
            return probe.get(key) if isinstance(probe, dict) else getattr(probe, key, None)

        def main_interval(name: str) -> tuple[float, unc.Interval] | None:
            probe = probes.get(name)
            v = get(probe, "value") if probe is not None else None
            if v is None:
                return None
            stored = get(probe, "interval")
            interval = tuple(stored) if stored else unc.probe_interval(get(probe, "samples") or [])
            return float(v), (interval or (float(v), float(v)))  # type: ignore[return-value]

        def keep(field_name: str | None, v: float, interval: unc.Interval) -> float:
            if field_name is not None:
                if v <= 0:
                    below.add(field_name)
                intervals[field_name] = unc.clamp(interval)
            return max(0.0, v)

        def value(name: str, field_name: str | None = None) -> float | None:
            found = main_interval(name)
            if found is None:
                return None
            return keep(field_name, found[0], found[1])

        def detail(name: str, key: str, field_name: str | None = None) -> float | None:
            probe = probes.get(name)
            v = (get(probe, "details") or {}).get(key) if probe is not None else None
            if v is None:
                return None
            v = float(v)
            stored = (get(probe, "detail_intervals") or {}).get(key)
            if stored:
                interval = (min(stored[0], v), max(stored[1], v))
            else:
                found = main_interval(name)
                interval = unc.relative_interval(v, found[0], found[1]) if found else (v, v)
            return keep(field_name, v, interval)

        one = [x for x in (detail("simd_fma", "one_core_gflops"),) if x]
        every = [x for x in (value("simd_fma"),) if x]
        for r in summary.scenarios if summary else []:
            if r.has_speed and r.gflops and "dense_kernel" in r.layers:
                (every if "parallel" in r.layers else one).append(r.gflops)
        numpy_us = value("numpy_call", "numpy_call_ns")
        if numpy_us is not None:
            low, high = intervals["numpy_call_ns"]
            intervals["numpy_call_ns"] = (low * 1e3, high * 1e3)
        return cls(
            dispatch_ns=value("dispatch", "dispatch_ns"),
            boxing_ns=value("boxing", "boxing_ns"),
            load_ns=value("container_access", "load_ns"),
            store_ns=detail("container_access", "store_ns", "store_ns"),
            array_load_ns=detail("container_access", "array_load_ns", "array_load_ns"),
            array_store_ns=detail("container_access", "array_store_ns", "array_store_ns"),
            call_ns=value("call_overhead", "call_ns"),
            builtin_ns=detail("call_overhead", "builtin_ns", "builtin_ns"),
            numpy_call_ns=numpy_us * 1e3 if numpy_us is not None else None,
            numpy_scalar_ns=detail("numpy_call", "scalar_op_ns", "numpy_scalar_ns"),
            peak_one_gflops=max(one, default=None),
            peak_all_gflops=max(every + one, default=None),
            intervals=intervals,
            below_resolution=frozenset(below),
        )


def _row(
    layer: str,
    events: float | None,
    unit: float | None,
    unit_name: str,
    costs: UnitCosts | None = None,
    cost: str | None = None,
) -> dict[str, Any]:
    """One model row; with ``costs`` and ``cost`` (a field name) it carries intervals."""
    ns = events * unit if events is not None and unit is not None else None
    row: dict[str, Any] = {
        "layer": layer,
        "events_per_fma": events,
        "unit_cost": unit,
        "unit": unit_name,
        "ns_per_fma": ns,
    }
    interval = costs.interval(cost) if costs is not None and cost is not None else None
    if interval is not None and unit is not None:
        row["unit_interval"] = list(interval)
        if events is not None:
            row["ns_interval"] = list(unc.times(events, interval))
    if costs is not None and cost in costs.below_resolution:
        row["below_resolution"] = True
    return row


def interpreted_rows(
    events: dict[str, Any], layers: list[str], costs: UnitCosts
) -> list[dict[str, Any]]:
    """Rows of the interpreted part of the model (ns per FMA each)."""
    ops = events.get("by_opcode", {})
    loads = sum(v for k, v in ops.items() if k in LIST_LOADS)
    stores = sum(v for k, v in ops.items() if k in LIST_STORES)
    generic = sum(v for k, v in ops.items() if k in GENERIC_OPS)
    array_loads = float(events.get("array_loads") or 0.0)
    array_stores = float(events.get("array_stores") or 0.0)
    generic = max(0.0, generic - array_loads - array_stores)
    numpy_calls = events.get("numpy_calls", 0.0)
    other_builtins = events.get("builtin_calls", 0.0) - numpy_calls
    # floats an array read creates are inside the array read's probe cost
    floats = max(0.0, float(events.get("floats") or 0.0) - array_loads)
    rows = [
        _row(
            "interpreter_dispatch",
            events.get("dispatches"),
            costs.dispatch_ns,
            "ns/dispatch",
            costs,
            "dispatch_ns",
        ),
        _row("boxing", floats, costs.boxing_ns, "ns/float", costs, "boxing_ns"),
        _row("container_access", loads, costs.load_ns, "ns/load", costs, "load_ns"),
        _row("container_access", stores, costs.store_ns, "ns/store", costs, "store_ns"),
        _row(
            "container_access",
            array_loads,
            costs.array_load_ns,
            "ns/array read (its float included)",
            costs,
            "array_load_ns",
        ),
        _row(
            "container_access",
            array_stores,
            costs.array_store_ns,
            "ns/array write",
            costs,
            "array_store_ns",
        ),
        _row(
            "call_overhead", events.get("python_calls"), costs.call_ns, "ns/call", costs, "call_ns"
        ),
        _row(
            "call_overhead",
            other_builtins,
            costs.builtin_ns,
            "ns/builtin call",
            costs,
            "builtin_ns",
        ),
    ]
    if "library_layers" in layers and "scalar_compute" in layers:
        # element-wise loops: the unspecialised instructions act on numpy scalars
        rows.append(
            _row(
                "library_layers",
                generic,
                costs.numpy_scalar_ns,
                "ns/numpy scalar op",
                costs,
                "numpy_scalar_ns",
            )
        )
        rows.append(
            _row(
                "library_layers",
                numpy_calls,
                costs.numpy_call_ns,
                "ns/numpy call",
                costs,
                "numpy_call_ns",
            )
        )
    elif "library_layers" in layers:
        rows.append(
            _row(
                "library_layers",
                numpy_calls + generic,
                costs.numpy_call_ns,
                "ns/numpy call",
                costs,
                "numpy_call_ns",
            )
        )
    return [r for r in rows if r["events_per_fma"]]


def own_scale(result: ScenarioResult, costs: UnitCosts) -> tuple[float, unc.Interval] | None:
    """(ns/dispatch in the rung's own worker) / (the dispatch probe's value), with its interval
    (the range of the worker's reference samples over the probe value); None without both."""
    reference = [x for x in (getattr(result, "reference_dispatch_ns", None) or []) if x > 0]
    if not reference or not costs.dispatch_ns:
        return None
    now = statistics.median(reference)
    return now / costs.dispatch_ns, (
        min(reference) / costs.dispatch_ns,
        max(reference) / costs.dispatch_ns,
    )


def breakdown(result: ScenarioResult, costs: UnitCosts) -> dict[str, Any] | None:
    """The model breakdown of one ok scenario with counted events, or None.

    Returns:
        ``{"method": "model", "explained": fraction, "explained_interval": [low, high],
        "layers": {layer: fraction of the median time}, "intervals": {layer: [low, high]},
        "rows": [...], "scale": {...} or None}``; ``layers["other"]`` = 1 − explained (may be
        negative).  Intervals: see ``analysis.uncertainty``.
    """
    events = result.events_per_fma
    if not result.has_speed or not events or result.median_s is None:
        return None
    fmas = result.flops / 2
    measured_ns = result.median_s / fmas * 1e9
    measured = unc.timing_interval(measured_ns, (result.iqr_s or 0.0) / fmas * 1e9)
    scale = own_scale(result, costs)
    if scale is not None:
        costs = costs.scaled(*scale)
    rows = interpreted_rows(events, result.layers, costs)
    compiled = (events.get("dispatches") or 0.0) < INTERPRETED_THRESHOLD
    peak = costs.peak_all_gflops if "parallel" in result.layers else costs.peak_one_gflops
    if peak and ("dense_kernel" in result.layers or "simd_compute" in result.layers):
        layer = "dense_kernel" if "dense_kernel" in result.layers else "simd_compute"
        row = _row(layer, 2.0, 1.0 / peak, "ns/flop at peak")
        row["unit_interval"] = [1.0 / peak, 1.0 / peak]
        row["ns_interval"] = [2.0 / peak, 2.0 / peak]
        rows.append(row)
    modelled = sum(r["ns_per_fma"] or 0.0 for r in rows)
    modelled_interval = unc.total(
        tuple(r.get("ns_interval") or (r["ns_per_fma"] or 0.0,) * 2) for r in rows
    )
    residual = measured_ns - modelled
    shares: dict[str, float] = {}
    layer_ns: dict[str, list[unc.Interval]] = {}
    for r in rows:
        shares[r["layer"]] = shares.get(r["layer"], 0.0) + (r["ns_per_fma"] or 0.0) / measured_ns
        layer_ns.setdefault(r["layer"], []).append(
            tuple(r.get("ns_interval") or (r["ns_per_fma"] or 0.0,) * 2)  # type: ignore[arg-type]
        )
    intervals = {k: list(unc.share(unc.total(v), measured)) for k, v in layer_ns.items()}
    target = next((x for x in RESIDUAL_LAYERS if x in result.layers and x not in shares), None)
    explained = 1.0 - residual / measured_ns  # before any residual is labelled
    explained_interval = unc.share(modelled_interval, measured)
    rest_interval = unc.complement(explained_interval)
    labelled = 0.0
    if compiled and target is not None and residual > 0:
        labelled = residual / measured_ns
        shares[target] = residual / measured_ns
        intervals[target] = list(unc.clamp(rest_interval))
        rows.append(
            {
                "layer": target,
                "events_per_fma": None,
                "unit_cost": None,
                "unit": "rest of the measured time",
                "ns_per_fma": residual,
            }
        )
        residual = 0.0
        rest_interval = (0.0, 0.0)
    shares["other"] = residual / measured_ns
    intervals["other"] = list(rest_interval)
    for r in rows:
        r["share"] = (r["ns_per_fma"] or 0.0) / measured_ns
        if r.get("ns_interval"):
            r["share_interval"] = list(unc.share(tuple(r["ns_interval"]), measured))
    return {
        "method": "model",
        "explained": explained,
        "explained_interval": list(explained_interval),
        "labelled_rest": labelled,
        "measured_ns_per_fma": measured_ns,
        "measured_interval": list(measured),
        "layers": shares,
        "intervals": intervals,
        "rows": rows,
        "scale": (
            {
                "factor": scale[0],
                "interval": list(scale[1]),
                "dispatch_ns_now": costs.dispatch_ns,
                "samples": len(getattr(result, "reference_dispatch_ns", []) or []),
            }
            if scale is not None
            else None
        ),
    }


def attribute(summary: RunSummary, probes: dict[str, Any]) -> None:
    """Fill every scenario's ``breakdown`` (with ``agreement`` when perf profiled it) and the
    summary's ``waterfall`` in place."""
    costs = UnitCosts.from_probes(probes, summary)
    for result in summary.scenarios:
        result.breakdown = breakdown(result, costs)
        attach_agreement(result)
    summary.waterfall = waterfall(summary)
