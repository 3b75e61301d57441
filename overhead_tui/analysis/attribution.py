"""The model breakdown of each scenario and the waterfall of the ladder.

Model (per multiply-add, all times in ns):

* Interpreted work, from exact event counts × probe unit costs:
  ``interpreter_dispatch`` = dispatches × ns/dispatch (probe ``dispatch``);
  ``boxing`` = floats created × ns/float (``boxing``; the float arithmetic itself is inside
  this cost); ``container_access`` = specialised list/tuple subscript loads × ns/load +
  stores × ns/store (``container_access``); int results of specialised int arithmetic
  (``INT_RESULT_OPS``) × ns/int (``boxing`` detail ``int_ns``); ``call_overhead`` = Python
  calls × ns/call + generator resumptions (``YIELD_VALUE``) × ns/generator item (detail
  ``generator_item_ns``: the resumption and the C iteration of ``zip`` and ``sum``) +
  non-numpy builtin calls × ns/builtin call (``call_overhead``); ``library_layers`` =
  (numpy calls + unspecialised arithmetic/subscript instructions, which in a rung carrying
  library layers act on numpy objects) × the fixed cost of a numpy call (``numpy_call``); in a
  rung that also carries ``scalar_compute`` (an element-wise loop) the unspecialised
  instructions act on numpy scalars and are priced by kind: element reads, element writes and
  scalar arithmetic, plus each ``BUILD_TUPLE`` (the index tuple), at the ``numpy_call``
  probe's ``scalar_load_ns``, ``scalar_store_ns``, ``scalar_multiply_ns`` and
  ``index_tuple_ns`` (probes from before those details: all at ``scalar_op_ns``).
* Compiled work: a rung whose own code was read (``generated_code``: the hot loop of its C
  source compiled with its flags, or of its numba functions) has its flops priced at *its*
  FP rate — the ``simd_fma`` probe's measured FP-instruction issue rate (one core, or all
  cores for a rung that carries ``parallel``) × the flops each of its FP instructions does
  (``simd_compute`` for packed code, ``scalar_compute`` for scalar): a roofline-style
  in-core bound (Williams et al. 2009; the in-core term of the ECM model, Hager & Wellein,
  *Introduction to High Performance Computing for Scientists and Engineers*, 2010).
  Others (BLAS) get their flops at the measured compute peak, ``dense_kernel`` if the rung
  carries it, else ``simd_compute``; the peak is the best of the ``simd_fma`` probe and the
  dense kernels measured in this run.
* What the model does not explain (measured − modelled) is ``other``, *unexplained*, for
  compiled rungs too, reported even when negative: a layer the rung's file declares is no
  measurement of its time, so it is never given the rest.  ``explained`` is the modelled
  fraction; ``labelled_rest`` is 0 (older files labelled the rest of a compiled rung).

* Compiled Python (Cython, mypyc): the rung's ``counted_kernel``, the same source run as
  bytecode (its Python twin), is counted, and only the rows of the layers the rung still
  carries are priced: Cython's untyped C keeps the boxing, the subscripts and the number
  protocol but not the eval loop; mypyc's unboxed floats keep only the list subscripts.  The
  prediction (``predicted_ns_per_fma``) uses no timing of the rung.

Limits: unit costs are averages of microbenchmarks (a real loop's instruction mix, branch
prediction and cache state differ); an int result inside the small-int cache allocates
nothing but is priced like one that does (index arithmetic at the ladder's sizes mostly
allocates); ``generator_item_ns`` is measured on the one generator idiom the ladder has
(``sum`` over ``zip``); dynamic type dispatch has no probe of its own, so its cost ends in
``other``.

Uncertainty (``analysis.uncertainty``): every unit cost carries an interval from its probe's
per-process values, the rung's time the middle half of its samples; rows, layers,
``explained`` and ``other`` carry the propagated bounds (``intervals``, ``explained_interval``).

Like with like: a rung that carries ``interpreter_dispatch`` measures the probe's reference
loop (``y = x is z``) in its own worker right before and after its samples
(``reference_dispatch_ns``).  The interpreted unit costs are then scaled by (ns/dispatch now) /
(the dispatch probe's value): the probes give the *ratios* between costs, the rung's own worker
the machine's speed of the moment (``scale`` in the breakdown).

Waterfall (``analysis.waterfall``): the ok rungs in rung order; between consecutive rungs, the
time per flop saved is credited to the layers whose modelled cost changed beyond its noise.
The speedups multiply to the measured span exactly.
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from overhead_tui.analysis import twin
from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.agreement import attach_agreement
from overhead_tui.analysis.compiled import compiled_rows
from overhead_tui.analysis.numpy_layers import numpy_loop_rows, numpy_rows, numpy_scalar_rows
from overhead_tui.analysis.rows import priced_row as _row
from overhead_tui.analysis.sites import (
    prices_c_loops,
    site_rows,
    site_scale,
    timed_c_calls,
    unpriced_calls,
)
from overhead_tui.analysis.staleness import probe_doubt
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.summary.breakdown import FITTED_MARK, Breakdown, BreakdownRow, Scale
from overhead_tui.summary.codec import ABSENT
from overhead_tui.summary.measured import INTERPRETED_DISPATCHES, EventsPerFma
from overhead_tui.summary.probes import Probes
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.vocabulary import (
    FLOAT_RESULT_OPS,
    GENERATOR_RESUMPTIONS,
    GENERIC_OPS,
    INT_RESULT_OPS,
)

LIST_LOADS = frozenset({"BINARY_SUBSCR_LIST_INT", "BINARY_SUBSCR_TUPLE_INT"})
LIST_STORES = frozenset({"STORE_SUBSCR_LIST_INT"})

COMPILED_DISPATCHES = INTERPRETED_DISPATCHES
"""Dispatches per multiply-add below which a rung counts as compiled (no interpreter work)."""
CLOSURE = {"interpreted": (0.85, 1.15), "compiled": (0.7, 1.3)}
"""``explained`` within which the model closes: probed unit costs and counts are averages
(±15 % for an interpreted rung, the project's target since its second round); a compiled
rung's in-core bound leaves memory and latency unmodelled (±30 %).  Outside it the rung's
profiles (perf, callgrind) are the primary numbers, and the views say so."""


def _c_float_row(floats: float, costs: UnitCosts) -> BreakdownRow:
    """Floats a builtin's C calls make (``operator.mul`` from ``map``): at the C-API float op
    (``boxing`` detail ``c_api_float_ns``, measured with Cython), or where that interpreter has
    no Cython at the float's creation alone (the ``boxing`` probe's value: a lower bound)."""
    if costs.c_api_float_ns is not None:
        unit = "ns/float op through the C API in a builtin's call (its float included)"
        return _row("boxing", floats, costs.c_api_float_ns, unit, costs, "c_api_float_ns")
    unit = "ns/float created in a builtin's call (no C-API probe here: its creation only)"
    return _row("boxing", floats, costs.boxing_ns, unit, costs, "boxing_ns")


def interpreted_rows(
    events: EventsPerFma,
    costs: UnitCosts,
    compiler: str = "",
    site_speed: float = 1.0,
    median_s: float | None = None,
) -> list[BreakdownRow]:
    """Rows of the interpreted part of the model (ns per FMA each), from what the kernel
    executed alone: its declarations (``LAYERS``, ``REMOVES``) only name and order them.
    ``compiler``: who built a Python twin's rung (``BuildInfo.compiler``), which sets the price
    of its list loads and which of its twin's layers it still pays (``twin.kept_layers``);
    ``site_speed``: its sites' timings brought to its samples' speed (``sites.site_scale``);
    ``median_s``: the samples' median, against the kernel timed after each site."""
    ops = events.by_opcode
    sites = events.sites if not events.python_twin else None
    loads = sum(v for k, v in ops.items() if k in LIST_LOADS)
    stores = sum(v for k, v in ops.items() if k in LIST_STORES)
    generic = sum(v for k, v in ops.items() if k in GENERIC_OPS)
    array_loads = float(events.array_loads or 0.0)  # absent from older files: none
    array_stores = float(events.array_stores or 0.0)
    generic = max(0.0, generic - array_loads - array_stores)
    timed_builtins, timed_numpy = timed_c_calls(sites) if sites else (0.0, 0.0)
    numpy_calls = max(0.0, events.numpy_calls - timed_numpy)
    other = events.builtin_calls - events.numpy_calls
    other_builtins = max(0.0, other - (timed_builtins - timed_numpy))
    # a builtin's loop over a C iterator timed whole (``sum(map(f, x, y))``) has its calls in
    c_loops = 0.0 if sites and prices_c_loops(sites) else 1.0
    # floats an array read creates are inside the array read's probe cost
    floats = max(0.0, float(events.floats or 0.0) - array_loads)
    ints = sum(v for k, v in ops.items() if k in INT_RESULT_OPS) if costs.int_ns is not None else 0
    if events.int_made_share is not ABSENT:  # outside the small-int cache only
        ints *= events.int_made_share
    calls = float(events.python_calls or 0.0)
    resumptions = 0.0
    if costs.generator_item_ns is not None:
        resumptions = min(calls, sum(v for k, v in ops.items() if k in GENERATOR_RESUMPTIONS))
    generators = 0.0  # generators started: where the probe has their price
    if costs.generator_ns is not None:
        generators = min(calls - resumptions, float(events.generators or 0.0))
    entries = 0.0  # frames entered from C: where the probe has their price
    if costs.c_entry_item_ns is not None:
        entries = min(calls - resumptions - generators, float(events.c_entries or 0.0))
    functions = ops.get("MAKE_FUNCTION", 0.0) if costs.function_ns is not None else 0.0
    appends = ops.get("LIST_APPEND", 0.0) if costs.list_append_ns is not None else 0.0
    # costs fitted over loops of the rungs' shape (``loop_mix``) where they hold, else
    # each event's own probe
    fitted = costs.mix_dispatch_ns is not None
    dispatch_field = "mix_dispatch_ns" if fitted else "dispatch_ns"
    float_field = "mix_float_ns" if fitted and costs.mix_float_ns is not None else "boxing_ns"
    load_field = "mix_load_ns" if fitted and costs.mix_load_ns is not None else "load_ns"
    suffix = FITTED_MARK if fitted else ""
    load_unit = "ns/load" + suffix
    if events.python_twin and (c_api := twin.c_api_load(costs, compiler)) is not None:
        load_field, load_unit = c_api
    # (layer, events per FMA, the UnitCosts field that prices one, its unit): each cost once
    table: list[tuple[str, float, str, str]] = [
        ("interpreter_dispatch", events.dispatches, dispatch_field, "ns/dispatch" + suffix),
        ("boxing", floats, float_field, "ns/float" + suffix),
        ("boxing", ints, "int_ns", "ns/int (above the small-int cache)"),
        ("container_access", loads, load_field, load_unit),
        ("container_access", stores, "store_ns", "ns/store"),
        ("container_access", appends, "list_append_ns",
         "ns/item a comprehension appends (the list's growth and release)"),
        ("container_access", array_loads, "array_load_ns", "ns/array read (its float included)"),
        ("container_access", array_stores, "array_store_ns", "ns/array write"),
        ("call_overhead", calls - resumptions - entries - generators, "call_ns", "ns/call"),
        ("call_overhead", generators, "generator_ns",
         "ns/generator made, started and finished (its object, first entry, return)"),
        ("call_overhead", functions, "function_ns",
         "ns/function object made (a lambda, a nested def, a 3.11 comprehension)"),
        ("call_overhead", entries, "c_entry_item_ns",
         "ns/Python function called from C (a map item, its iterator and sum steps)"),
        ("call_overhead", resumptions, "generator_item_ns",
         "ns/generator item (resume, zip and sum steps)"),
        ("call_overhead", c_loops * float(events.c_calls or 0.0), "c_call_item_ns",
         "ns/builtin called from C (a map item, its iterator and sum steps)"),
        ("call_overhead", other_builtins, "builtin_ns", "ns/builtin call"),
    ]  # fmt: skip
    rows = [_row(layer, n, getattr(costs, f), unit, costs, f) for layer, n, f, unit in table]
    rows.append(_c_float_row(c_loops * float(events.c_floats or 0.0), costs))
    if events.python_twin and (protocol := twin.number_protocol_ns(costs, compiler)) is not None:
        float_ops = sum(v for k, v in ops.items() if k in FLOAT_RESULT_OPS)
        unit = f"ns/float op through the generic number protocol ({compiler})"
        ns, (low, high) = protocol
        row = _row("dynamic_dispatch", float_ops, ns, unit)
        rows.append(
            replace(row, unit_interval=(low, high), ns_interval=(low * float_ops, high * float_ops))
        )
    if sites is not None:  # the kernel's C work, timed at its own arguments
        unpriced = unpriced_calls(events.numpy_operations)
        rows.extend(site_rows(sites, site_speed, unpriced, median_s))
        rows.extend(numpy_loop_rows(events.numpy_operations, costs.numpy_rates))
        rows.append(
            _row("library_layers", numpy_calls, costs.numpy_call_ns, "ns/numpy call", costs,
                 "numpy_call_ns")
        )  # fmt: skip
    else:  # files from before the sites: numpy's work by what the counter saw it act on
        rows.extend(_legacy_numpy_rows(events, ops, generic, numpy_calls, costs))
    if events.python_twin:  # a compiled rung counted on its Python source: what it still pays
        kept = twin.kept_layers(compiler)
        rows = [r for r in rows if r.layer in kept]
    return [r for r in rows if r.events_per_fma]


def _legacy_numpy_rows(
    events: EventsPerFma,
    ops: dict[str, float],
    generic: float,
    numpy_calls: float,
    costs: UnitCosts,
) -> list[BreakdownRow]:
    """numpy's rows of a file counted before the sites: its census's operations on arrays
    where it has them, else its unspecialised instructions on numpy scalars by kind, else every
    unspecialised instruction at a numpy call's cost."""
    if (
        events.numpy_operations
        and (numpy := numpy_rows(events.numpy_operations, costs.numpy_rates)) is not None
    ):
        return numpy
    rows: list[BreakdownRow] = []
    if not events.numpy_scalars and not numpy_calls:  # no numpy seen: its generic ops are not
        return rows
    if events.numpy_scalars:
        rows.extend(numpy_scalar_rows(ops, generic, costs))
        generic = 0.0
    rows.append(
        _row("library_layers", numpy_calls + generic, costs.numpy_call_ns, "ns/numpy call", costs,
             "numpy_call_ns")
    )  # fmt: skip
    return rows


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


def breakdown(result: ScenarioResult, costs: UnitCosts) -> Breakdown | None:
    """The model breakdown of one ok scenario with counted events, or None.

    Returns:
        A :class:`~overhead_tui.summary.breakdown.Breakdown`: ``explained`` (a fraction),
        ``layers`` {layer: fraction of the median time}, ``intervals`` {layer: [low, high]},
        ``rows``, ``scale`` (or None); ``layers["other"]`` = 1 − explained (may be negative).
        Intervals: see ``analysis.uncertainty``.
    """
    events = result.events_per_fma
    if not result.has_speed or not events or result.median_s is None:
        return None
    fmas = result.flops / 2
    measured_ns = result.median_s / fmas * 1e9
    measured = unc.timing_interval(measured_ns, (result.iqr_s or 0.0) / fmas * 1e9)
    # the eval loop's costs at this worker's speed, where its code runs bytecode
    runs_bytecode = events.dispatches >= INTERPRETED_DISPATCHES or events.python_twin
    scale = own_scale(result, costs) if runs_bytecode else None
    if scale is not None:
        costs = costs.scaled(*scale)
    speed = site_scale(
        result.reference_dispatch_ns,
        events.site_reference_ns,
        result.median_s,
        events.site_kernel_s,
    )
    compiler = result.build.compiler if result.build else ""
    rows = interpreted_rows(events, costs, compiler, speed, result.median_s)
    compiled = compiled_rows(result, costs, measured)
    if compiled is not None:
        rows.extend(compiled[0])
    elif _runs_at_peak(events):
        rows.extend(_peak_rows(result, costs))
    modelled = sum(r.ns_per_fma or 0.0 for r in rows)
    modelled_interval = unc.total(r.ns_bounds for r in rows)
    residual = measured_ns - modelled
    shares: dict[str, float] = {}
    layer_ns: dict[str, list[unc.Interval]] = {}
    for r in rows:
        shares[r.layer] = shares.get(r.layer, 0.0) + (r.ns_per_fma or 0.0) / measured_ns
        layer_ns.setdefault(r.layer, []).append(r.ns_bounds)
    intervals = {k: unc.share(unc.total(v), measured) for k, v in layer_ns.items()}
    explained = 1.0 - residual / measured_ns
    explained_interval = unc.share(modelled_interval, measured)
    rest_interval = unc.complement(explained_interval)
    # what the priced events do not explain stays unexplained ("other"), for compiled rungs
    # too: a layer the rung declares is no measurement of its time
    shares["other"] = residual / measured_ns
    intervals["other"] = rest_interval
    # a Python twin's dispatches are the interpreter's, not the compiled rung's
    interpreted = (events.dispatches or 0.0) >= COMPILED_DISPATCHES and not events.python_twin
    return Breakdown(
        method="model",
        closure=CLOSURE["interpreted" if interpreted else "compiled"],
        explained=explained,
        explained_interval=explained_interval,
        measured_ns_per_fma=measured_ns,
        predicted_ns_per_fma=modelled,
        predicted_interval=modelled_interval,
        prediction=twin.TWIN_PREDICTION if events.python_twin else "",
        measured_interval=measured,
        layers=shares,
        intervals=intervals,
        rows=[_shared(r, measured_ns, measured) for r in rows],
        compiled=compiled[1] if compiled is not None else None,
        scale=(
            Scale(
                factor=scale[0],
                interval=scale[1],
                dispatch_ns_now=costs.dispatch_ns,
                samples=len(getattr(result, "reference_dispatch_ns", []) or []),
            )
            if scale is not None
            else None
        ),
    )


def _runs_at_peak(events: EventsPerFma) -> bool:
    """Whether the kernel's flops run in a compiled or BLAS kernel the model prices at a peak:
    it dispatches (next to) no bytecode per multiply-add, or numpy handed a product of
    matrices to BLAS.  Decided by what it executed, never by its declared layers."""
    if events.numpy_operations:  # numpy's loops are priced, BLAS's products at the peak
        return any(op.kind == "blas" for op in events.numpy_operations)
    quiet = max(events.dispatches or 0.0, events.builtin_calls or 0.0, events.c_calls or 0.0)
    return quiet < COMPILED_DISPATCHES  # no interpreter or builtin work per multiply-add


def _peak_rows(result: ScenarioResult, costs: UnitCosts) -> list[BreakdownRow]:
    """Flops at a peak, for files from before the compiled-rung model: at the rung's own FP
    rate when its hot loop's FP instructions were read, else at the measured compute peak."""
    peak = costs.peak_all_gflops if "parallel" in result.layers else costs.peak_one_gflops
    issue = costs.fp_issue_all if "parallel" in result.layers else costs.fp_issue_one
    code = result.generated_code
    if code is not None and code.flops_per_instruction and issue:
        rate = issue * code.flops_per_instruction  # GFLOP/s
        layer = "simd_compute" if code.width_bits else "scalar_compute"
        width = f"{code.width_bits}-bit" if code.width_bits else "scalar"
        unit = f"ns/flop at its FP rate ({width}, {code.flops_per_instruction:g} flop/instr)"
    elif peak:
        rate = peak
        # the declaration only names the row: a dense kernel, or SIMD compute
        layer = "dense_kernel" if "dense_kernel" in result.layers else "simd_compute"
        unit = "ns/flop at peak"
    else:
        return []
    return [
        replace(
            _row(layer, 2.0, 1.0 / rate, unit),
            unit_interval=(1.0 / rate, 1.0 / rate),
            ns_interval=(2.0 / rate, 2.0 / rate),
        )
    ]


def _shared(row: BreakdownRow, measured_ns: float, measured: unc.Interval) -> BreakdownRow:
    """``row`` with its share of the measured time (and that share's interval)."""
    return replace(
        row,
        share=(row.ns_per_fma or 0.0) / measured_ns,
        share_interval=unc.share(row.ns_interval, measured) if row.ns_interval else None,
    )


def attribute(summary: RunSummary, probes: Probes) -> None:
    """Fill every scenario's ``breakdown`` (with ``agreement`` when perf profiled it) and the
    summary's ``waterfall`` in place."""
    costs = UnitCosts.from_probes(probes, summary)
    for result in summary.scenarios:
        result.breakdown = _run_breakdown(result, costs, summary, probes)
        attach_agreement(result)
    summary.waterfall = waterfall(summary)


def attach_profile(result: ScenarioResult, summary: RunSummary) -> None:
    """A rung whose profile just arrived: what the profile adds (``attach_agreement``), and
    its breakdown derived again with the summary's probes, which a perf profile changes for a
    parallel rung (the cores its threads spent waiting: ``cores.runtime_wait_share``)."""
    if summary.probes and "parallel" in result.layers:
        costs = UnitCosts.from_probes(summary.probes, summary)
        result.breakdown = _run_breakdown(result, costs, summary, summary.probes)
    attach_agreement(result)


def _run_breakdown(
    result: ScenarioResult, costs: UnitCosts, summary: RunSummary, probes: Probes
) -> Breakdown | None:
    """:func:`breakdown` with what the run adds: why its probes may not price it now."""
    b = breakdown(result, costs)
    if b is None:
        return None
    factor = b.scale.factor if b.scale else None
    interpreted = any(
        row.unit == "ns/dispatch" and (row.events_per_fma or 0) >= 1 for row in b.rows
    )  # priced one dispatch at a time, though the rung runs bytecode for every FMA
    doubt = probe_doubt(
        probes.values(), summary.created, factor, result.other_cpu_fraction,
        mix_error=costs.mix_fit_error if interpreted else None,
    )  # fmt: skip
    return replace(b, probe_doubt=doubt)
