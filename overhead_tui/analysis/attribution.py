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

Waterfall: the ok rungs in rung order; between consecutive rungs, the time per flop saved is
credited to the layers the later rung removes, in proportion to their modelled shares in the
earlier rung (equally when together they are under 5 % of it).  The speedups multiply to the
measured span exactly.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.vocabulary import GENERIC_OPS

LIST_LOADS = frozenset({"BINARY_SUBSCR_LIST_INT", "BINARY_SUBSCR_TUPLE_INT"})
LIST_STORES = frozenset({"STORE_SUBSCR_LIST_INT"})
INTERPRETED_THRESHOLD = 0.05
"""Dispatches per multiply-add below which a rung counts as compiled (no interpreter work)."""
RESIDUAL_LAYERS = ("scalar_compute", "memory", "parallel")
MIN_CREDIT_SHARE = 0.05
"""Below this modelled share (of the earlier rung) for all removed layers together, the
waterfall splits a step's saving equally among them instead of by share."""


@dataclass(frozen=True)
class UnitCosts:
    """Unit costs from the probes (ns, except GFLOP/s and µs as named)."""

    dispatch_ns: float | None = None
    boxing_ns: float | None = None
    load_ns: float | None = None
    store_ns: float | None = None
    call_ns: float | None = None
    builtin_ns: float | None = None
    numpy_call_ns: float | None = None
    numpy_scalar_ns: float | None = None
    peak_one_gflops: float | None = None
    peak_all_gflops: float | None = None

    @classmethod
    def from_probes(cls, probes: dict[str, Any], summary: RunSummary | None = None) -> UnitCosts:
        """Read unit costs from probe results (dicts or ``ProbeResult``), and dense peaks."""

        def value(name: str) -> float | None:
            probe = probes.get(name)
            v = probe.get("value") if isinstance(probe, dict) else getattr(probe, "value", None)
            return max(0.0, float(v)) if v is not None else None

        def detail(name: str, key: str) -> float | None:
            probe = probes.get(name)
            details = (
                probe.get("details") if isinstance(probe, dict) else getattr(probe, "details", None)
            )
            v = (details or {}).get(key)
            return max(0.0, float(v)) if v is not None else None

        one = [x for x in (detail("simd_fma", "one_core_gflops"),) if x]
        every = [x for x in (value("simd_fma"),) if x]
        for r in summary.scenarios if summary else []:
            if r.has_speed and r.gflops and "dense_kernel" in r.layers:
                (every if "parallel" in r.layers else one).append(r.gflops)
        numpy_us = value("numpy_call")
        return cls(
            dispatch_ns=value("dispatch"),
            boxing_ns=value("boxing"),
            load_ns=value("container_access"),
            store_ns=detail("container_access", "store_ns"),
            call_ns=value("call_overhead"),
            builtin_ns=detail("call_overhead", "builtin_ns"),
            numpy_call_ns=numpy_us * 1e3 if numpy_us is not None else None,
            numpy_scalar_ns=detail("numpy_call", "scalar_op_ns"),
            peak_one_gflops=max(one, default=None),
            peak_all_gflops=max(every + one, default=None),
        )


def _row(layer: str, events: float | None, unit: float | None, unit_name: str) -> dict[str, Any]:
    ns = events * unit if events is not None and unit is not None else None
    return {
        "layer": layer,
        "events_per_fma": events,
        "unit_cost": unit,
        "unit": unit_name,
        "ns_per_fma": ns,
    }


def interpreted_rows(
    events: dict[str, Any], layers: list[str], costs: UnitCosts
) -> list[dict[str, Any]]:
    """Rows of the interpreted part of the model (ns per FMA each)."""
    ops = events.get("by_opcode", {})
    loads = sum(v for k, v in ops.items() if k in LIST_LOADS)
    stores = sum(v for k, v in ops.items() if k in LIST_STORES)
    generic = sum(v for k, v in ops.items() if k in GENERIC_OPS)
    numpy_calls = events.get("numpy_calls", 0.0)
    other_builtins = events.get("builtin_calls", 0.0) - numpy_calls
    rows = [
        _row("interpreter_dispatch", events.get("dispatches"), costs.dispatch_ns, "ns/dispatch"),
        _row("boxing", events.get("floats"), costs.boxing_ns, "ns/float"),
        _row("container_access", loads, costs.load_ns, "ns/load"),
        _row("container_access", stores, costs.store_ns, "ns/store"),
        _row("call_overhead", events.get("python_calls"), costs.call_ns, "ns/call"),
        _row("call_overhead", other_builtins, costs.builtin_ns, "ns/builtin call"),
    ]
    if "library_layers" in layers and "scalar_compute" in layers:
        # element-wise loops: the unspecialised instructions act on numpy scalars
        rows.append(_row("library_layers", generic, costs.numpy_scalar_ns, "ns/numpy scalar op"))
        rows.append(_row("library_layers", numpy_calls, costs.numpy_call_ns, "ns/numpy call"))
    elif "library_layers" in layers:
        rows.append(
            _row("library_layers", numpy_calls + generic, costs.numpy_call_ns, "ns/numpy call")
        )
    return [r for r in rows if r["events_per_fma"]]


def breakdown(result: ScenarioResult, costs: UnitCosts) -> dict[str, Any] | None:
    """The model breakdown of one ok scenario with counted events, or None.

    Returns:
        ``{"method": "model", "explained": fraction, "layers": {layer: fraction of the median
        time}, "rows": [...]}``; ``layers["other"]`` = 1 − explained (may be negative).
    """
    events = result.events_per_fma
    if not result.has_speed or not events or result.median_s is None:
        return None
    measured_ns = result.median_s / (result.flops / 2) * 1e9
    rows = interpreted_rows(events, result.layers, costs)
    compiled = (events.get("dispatches") or 0.0) < INTERPRETED_THRESHOLD
    peak = costs.peak_all_gflops if "parallel" in result.layers else costs.peak_one_gflops
    if peak and ("dense_kernel" in result.layers or "simd_compute" in result.layers):
        layer = "dense_kernel" if "dense_kernel" in result.layers else "simd_compute"
        rows.append(_row(layer, 2.0, 1.0 / peak, "ns/flop at peak"))
    modelled = sum(r["ns_per_fma"] or 0.0 for r in rows)
    residual = measured_ns - modelled
    shares: dict[str, float] = {}
    for r in rows:
        shares[r["layer"]] = shares.get(r["layer"], 0.0) + (r["ns_per_fma"] or 0.0) / measured_ns
    target = next((x for x in RESIDUAL_LAYERS if x in result.layers and x not in shares), None)
    explained = 1.0 - residual / measured_ns  # before any residual is labelled
    labelled = 0.0
    if compiled and target is not None and residual > 0:
        labelled = residual / measured_ns
        shares[target] = residual / measured_ns
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
    shares["other"] = residual / measured_ns
    for r in rows:
        r["share"] = (r["ns_per_fma"] or 0.0) / measured_ns
    return {
        "method": "model",
        "explained": explained,
        "labelled_rest": labelled,
        "measured_ns_per_fma": measured_ns,
        "layers": shares,
        "rows": rows,
    }


def waterfall(summary: RunSummary) -> list[dict[str, Any]]:
    """Steps between consecutive ok rungs: speedup per flop and the time saved per layer.

    Each step: ``{"from", "to", "speedup", "saved_s_per_flop", "layers": {layer: s/flop}}``.
    """
    rungs = [r for r in sorted(summary.scenarios, key=lambda r: r.rung) if r.has_speed]
    steps = []
    for before, after in itertools.pairwise(rungs):
        assert before.median_s is not None and after.median_s is not None
        t_before = before.median_s / before.flops
        t_after = after.median_s / after.flops
        saved = t_before - t_after
        removed = list(after.removes) or ["other"]
        weights = {x: (before.breakdown or {}).get("layers", {}).get(x, 0.0) for x in removed}
        total = sum(w for w in weights.values() if w > 0)
        split = "by modelled share"
        if not after.removes:
            weights, total = {"other": 1.0}, 1.0
            split = "nothing declared removed"
        elif total < MIN_CREDIT_SHARE:  # the model does not see these layers: split equally
            weights, total = dict.fromkeys(removed, 1.0), float(len(removed))
            split = "equally (not modelled)"
        credited = {x: saved * max(w, 0.0) / total for x, w in weights.items()}
        steps.append(
            {
                "from": before.name,
                "to": after.name,
                "speedup": t_before / t_after,
                "saved_s_per_flop": saved,
                "layers": credited,
                "split": split,
            }
        )
    return steps


def attribute(summary: RunSummary, probes: dict[str, Any]) -> None:
    """Fill every scenario's ``breakdown`` and the summary's ``waterfall`` in place."""
    costs = UnitCosts.from_probes(probes, summary)
    for result in summary.scenarios:
        result.breakdown = breakdown(result, costs)
    summary.waterfall = waterfall(summary)
