"""Unit costs of the model breakdown, read from the probes (see ``analysis.attribution``).

Each field is a probe's value or one of its details, in ns (peaks in GFLOP/s); every one
carries the interval of its probe's per-process values (``analysis.uncertainty``).  A probe
that measured ≤ 0 gives 0 and is named in ``below_resolution``.

Like with like: each probe's worker times the dispatch probe's reference loop right before
and after the probe (``reference_dispatch_ns``, the same loop a rung's worker times); its
costs are expressed in dispatches and brought to the ``dispatch`` probe's speed
(``normalised``), so probes measured at busier or quieter moments than one another agree.
The breakdown then scales them all to the speed of the rung's own worker
(``attribution.own_scale``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.rates import (
    NumpyRate,
    dense_rates,
    family_rates,
    fma_rates,
    fp_issue_rates,
    l1_rates,
    numpy_rates,
    shuffle_rates,
)
from overhead_tui.summary.probes import Probes, probe_detail
from overhead_tui.summary.records import RunSummary

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
    "int_ns",
    "generator_item_ns",
    "c_call_item_ns",
    "c_entry_item_ns",
    "function_ns",
    "generator_ns",
    "list_append_ns",
    "numpy_load_ns",
    "numpy_store_ns",
    "numpy_multiply_ns",
    "index_tuple_ns",
    "mix_dispatch_ns",
    "mix_float_ns",
    "mix_load_ns",
    "c_api_load_ns",
    "c_api_float_ns",
    "c_api_subscript_ns",
)
"""Unit costs of CPython's own C code (the eval loop, and its C API called from compiled
modules): scaled by the rung's own reference dispatch timing."""


MIX_TRUSTED = 0.15
"""The ``loop_mix`` probe's three fitted costs replace the one-at-a-time ones when its fit
predicts each of its ten loops within 15 % (``fit_error``; 0.06–0.11 per process on a 2-vCPU
Xeon, 2026-12-02, and 0.09–0.21 predicting a loop left out of the fit; 0.075–0.10 on a
loaded 2-vCPU Zen 3, 2026-12-07, once each loop is read against the reference loop of its
own round): beyond that three costs do not describe this interpreter's loops, the
one-at-a-time probes are used, and the rung's breakdown says so
(``staleness.probe_doubt``)."""


UNIT_COST_SOURCES: dict[str, tuple[str, str | None]] = {
    "dispatch_ns": ("dispatch", None),
    "boxing_ns": ("boxing", None),
    "load_ns": ("container_access", None),
    "store_ns": ("container_access", "store_ns"),
    "array_load_ns": ("container_access", "array_load_ns"),
    "array_store_ns": ("container_access", "array_store_ns"),
    "c_api_load_ns": ("container_access", "c_api_load_ns"),
    "c_api_float_ns": ("boxing", "c_api_float_ns"),
    "c_api_subscript_ns": ("boxing", "c_api_subscript_ns"),
    "call_ns": ("call_overhead", None),
    "builtin_ns": ("call_overhead", "builtin_ns"),
    "numpy_scalar_ns": ("numpy_call", "scalar_op_ns"),
    "int_ns": ("boxing", "int_ns"),
    "generator_item_ns": ("call_overhead", "generator_item_ns"),
    "c_call_item_ns": ("call_overhead", "c_call_item_ns"),
    "c_entry_item_ns": ("call_overhead", "c_entry_item_ns"),
    "function_ns": ("call_overhead", "function_ns"),
    "generator_ns": ("call_overhead", "generator_ns"),
    "list_append_ns": ("container_access", "list_append_ns"),
    "numpy_load_ns": ("numpy_call", "scalar_load_ns"),
    "numpy_store_ns": ("numpy_call", "scalar_store_ns"),
    "numpy_multiply_ns": ("numpy_call", "scalar_multiply_ns"),
    "index_tuple_ns": ("numpy_call", "index_tuple_ns"),
    "fadd_ns": ("scalar_fma", "fadd_ns"),
    "fma_ns": ("scalar_fma", "fma_ns"),
    "stack_fadd_ns": ("scalar_fma", "stack_fadd_ns"),
    "issue_per_ns": ("scalar_fma", "issue_per_ns"),
    "loop_entry_ns": ("scalar_fma", "loop_entry_ns"),
    "aliased_load_ns": ("scalar_fma", "aliased_load_ns"),
    "page_load_ns": ("scalar_fma", "page_load_ns"),
}
"""Where each measured unit cost of :class:`UnitCosts` comes from, as data: {field: (probe,
its detail key, or None for the probe's own value)}.  ``from_probes`` reads them in one loop,
each with its interval; a test checks the table against the class's fields.  The fields not
here are derived (the peaks, the FP issue rates, the per-width and per-family rate tables),
converted (``numpy_call_ns``: the probe's µs) or conditional (the ``loop_mix`` fit)."""


@dataclass(frozen=True)
class UnitCosts:
    """Unit costs from the probes (ns, except GFLOP/s and µs as named)."""

    dispatch_ns: float | None = None
    """One bytecode instruction's dispatch (``dispatch`` probe)."""
    boxing_ns: float | None = None
    """Creating and freeing one float object (``boxing`` probe)."""
    load_ns: float | None = None
    """A list element read beyond its dispatch (``container_access`` probe)."""
    store_ns: float | None = None
    """A list element write beyond its dispatch (``container_access`` detail)."""
    array_load_ns: float | None = None
    """A read from an ``array.array`` beyond its dispatch, the float it creates included."""
    array_store_ns: float | None = None
    c_api_load_ns: float | None = None
    """A list element read in mypyc-compiled code: its out-of-line C-API subscript, the float
    unboxed, the loop's share (``container_access`` detail; absent without mypyc)."""
    call_ns: float | None = None
    builtin_ns: float | None = None
    numpy_call_ns: float | None = None
    numpy_scalar_ns: float | None = None
    c_api_float_ns: float | None = None
    """A float multiply through the generic number protocol in Cython-compiled untyped code,
    the float it creates included (``boxing`` detail; absent without Cython)."""
    c_api_subscript_ns: float | None = None
    """A list subscript with an object index through the mapping protocol (list's
    ``mp_subscript``) in Cython-compiled untyped code: how Nuitka reads every subscript
    (``boxing`` detail; absent without Cython)."""
    int_ns: float | None = None
    """An int result above the small-int cache (``boxing`` probe detail)."""
    generator_item_ns: float | None = None
    """One item a builtin pulls from a generator over ``zip``, beyond its dispatches."""
    c_call_item_ns: float | None = None
    """One item of a builtin loop in C, ``sum(map(f, xs))`` with ``f`` a builtin that makes
    nothing (``call_overhead`` detail): a builtin called from C, its iterator and sum steps."""
    c_entry_item_ns: float | None = None
    """One item of ``sum(map(f, xs))`` with ``f`` a Python function, beyond its dispatches
    (``call_overhead`` detail): a Python frame entered from C, its iterator and sum steps."""
    function_ns: float | None = None
    """A function object made and freed (``MAKE_FUNCTION``: a lambda, a nested ``def``, a
    comprehension's function before 3.12), beyond its dispatch (``call_overhead`` detail)."""
    generator_ns: float | None = None
    """A generator made, started, finished and freed, beyond its dispatches: its object, its
    frame's first entry and its return (``call_overhead`` detail); priced instead of a Python
    call for each generator started."""
    list_append_ns: float | None = None
    """An item a comprehension appends (``LIST_APPEND``), the list's growth and release
    included, beyond its dispatch (``container_access`` detail)."""
    numpy_load_ns: float | None = None
    """``arr[t]`` with a ready index tuple: creates a numpy scalar (``numpy_call`` detail)."""
    numpy_store_ns: float | None = None
    numpy_multiply_ns: float | None = None
    index_tuple_ns: float | None = None
    """Building the tuple ``(i, j)`` that indexes a 2-D array."""
    mix_dispatch_ns: float | None = None
    """ns per dispatch fitted over loops of the rungs' shape (``loop_mix``); None when the
    probe is absent or its fit does not carry (:data:`MIX_TRUSTED`)."""
    mix_float_ns: float | None = None
    """ns per float created, fitted the same way."""
    mix_load_ns: float | None = None
    """ns per list subscript load, fitted the same way."""
    mix_fit_error: float | None = None
    """The ``loop_mix`` fit's largest error over its loops (its ``fit_error``), whether or not
    the fit carries (:data:`MIX_TRUSTED`)."""
    peak_one_gflops: float | None = None
    peak_all_gflops: float | None = None
    fp_issue_one: float | None = None
    """FP instructions per ns one core issues: the ``simd_fma`` probe's one-core GFLOP/s over
    its flops per instruction (2 × lanes with FMA, lanes without)."""
    fp_issue_all: float | None = None
    """The same on all cores at once (the probe's all-cores rate)."""
    fadd_ns: float | None = None
    """One dependent scalar FP add (``scalar_fma`` detail): a loop-carried add chain's step."""
    fma_ns: float | None = None
    """One dependent FMA (``scalar_fma`` detail; vector FMAs have the same latency on the
    cores of the corpus: Agner Fog's instruction tables, 2022)."""
    stack_fadd_ns: float | None = None
    """A sum kept in a stack slot: load, add, store, forwarded (``scalar_fma`` detail)."""
    issue_per_ns: float | None = None
    """Independent simple instructions one core retires per ns (``scalar_fma`` detail)."""
    loop_entry_ns: float | None = None
    """Entering and leaving a short vectorised loop once (``scalar_fma`` detail): what each
    entry of a compiled rung's hot loop costs beyond its iterations."""
    aliased_load_ns: float | None = None
    """One of 32 independent loads through 32 pages that are one physical page
    (``scalar_fma`` detail): an L1 hit where the L1 is tagged by physical address."""
    page_load_ns: float | None = None
    """One of 32 independent loads from 32 lines of one page: an L1 hit everywhere."""
    l1_rates: dict[str, dict[int, float]] = field(default_factory=dict)
    """{"loads" | "stores" | "mixed": {width bits: accesses per ns}} one core sustains in L1
    (``scalar_fma`` details, ``kit.chains.l1_kernel``): the L1 bound of a compiled loop."""
    dense_rates: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    """{dtype: (one thread, all threads)} GFLOP/s (GOP/s for int8) of the best kernel measured
    for it: the BLAS GEMM of the ``dense_peak`` probe for float64 and float32, the best
    instruction family of the ``precision_peak`` probe for the lower precisions."""
    fma_rates: dict[int, float] = field(default_factory=dict)
    """{width bits: FMA instructions per ns} of one core (``scalar_fma`` details): code of a
    width is priced at its own rate (Zen 4: 512-bit at half the 256-bit rate)."""
    shuffle_rates: dict[int, tuple[float, float]] = field(default_factory=dict)
    """{width bits: (register shuffles per ns, their share of the FMA ports in [0, 1])} of one
    core (``scalar_fma`` details, :func:`~overhead_tui.analysis.rates.shuffle_rates`)."""
    family_rates: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    """{lower-precision instruction family: (one core, all cores)} GFLOP/s of the
    ``precision_peak`` probe (:func:`family_rates`)."""
    numpy_rates: dict[str, NumpyRate] = field(default_factory=dict)
    """{kind: fixed cost per call and time per element by size} of numpy's operations
    (``numpy_call`` probe details, ``analysis.numpy_layers``)."""
    intervals: dict[str, unc.Interval] = field(default_factory=dict)
    """Field name -> [low, high] of that unit cost (clamped at 0), see ``analysis.uncertainty``."""
    normalised: dict[str, float] = field(default_factory=dict)
    """Probe name -> the factor its interpreted costs were multiplied by: the ``dispatch``
    probe's ns/dispatch over the ``reference_dispatch_ns`` timed in the probe's own worker
    (its costs expressed in dispatches, then at the dispatch probe's speed; a probe measured
    at a busier moment than the dispatch probe is not charged for it).  Probes from before
    ``reference_dispatch_ns``: not normalised."""
    below_resolution: frozenset[str] = frozenset()
    """Fields whose probe measured ≤ 0 (counted as 0: below the probe's resolution)."""

    def interval(self, name: str) -> unc.Interval | None:
        """The interval of the unit cost ``name`` (a field), or the point value twice."""
        value: float | None = getattr(self, name)
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
    def from_probes(cls, probes: Probes, summary: RunSummary | None = None) -> UnitCosts:
        """Read unit costs from probe results, and dense peaks."""

        intervals: dict[str, unc.Interval] = {}
        below: set[str] = set()
        factors: dict[str, float] = {}

        def main_interval(name: str) -> tuple[float, unc.Interval] | None:
            probe = probes.get(name)
            if probe is None or probe.value is None:
                return None
            v, stored = probe.value, probe.interval
            found = unc.probe_interval(probe.samples or [])
            interval = (float(stored[0]), float(stored[1])) if stored else found
            return float(v), (interval or (float(v), float(v)))

        dispatch = main_interval("dispatch")

        def normalisation(name: str) -> float:
            """The dispatch probe's ns/dispatch over the reference loop's in probe ``name``'s
            own worker (``reference_dispatch_ns``): its costs at the dispatch probe's speed."""
            reference = probe_detail(probes, name, "reference_dispatch_ns")
            if name == "dispatch" or dispatch is None or not isinstance(reference, int | float):
                return 1.0
            if reference <= 0:
                return 1.0
            factors[name] = dispatch[0] / float(reference)
            return factors[name]

        def keep(field_name: str | None, v: float, interval: unc.Interval, name: str = "") -> float:
            if field_name in INTERPRETER_COSTS:
                factor = normalisation(name)
                v, interval = v * factor, (interval[0] * factor, interval[1] * factor)
            if field_name is not None:
                if v <= 0:
                    below.add(field_name)
                intervals[field_name] = unc.clamp(interval)
            return max(0.0, v)

        def value(name: str, field_name: str | None = None) -> float | None:
            found = main_interval(name)
            if found is None:
                return None
            return keep(field_name, found[0], found[1], name)

        def detail(name: str, key: str, field_name: str | None = None) -> float | None:
            probe = probes.get(name)
            v = probe_detail(probes, name, key)
            if probe is None or not isinstance(v, int | float):
                return None
            v = float(v)
            stored = (probe.detail_intervals or {}).get(key)
            if stored:
                interval = (min(stored[0], v), max(stored[1], v))
            else:
                found = main_interval(name)
                interval = unc.relative_interval(v, found[0], found[1]) if found else (v, v)
            return keep(field_name, v, interval, name)

        error = probe_detail(probes, "loop_mix", "fit_error")
        mix_fit_error = float(error) if isinstance(error, int | float) else None
        carries = mix_fit_error is not None and mix_fit_error <= MIX_TRUSTED
        fitted = (
            {
                "mix_dispatch_ns": value("loop_mix", "mix_dispatch_ns"),
                "mix_float_ns": detail("loop_mix", "float_ns", "mix_float_ns"),
                "mix_load_ns": detail("loop_mix", "load_ns", "mix_load_ns"),
            }
            if carries
            else {}
        )
        one = [x for x in (detail("simd_fma", "one_core_gflops"),) if x]
        every = [x for x in (value("simd_fma"),) if x]
        for r in summary.scenarios if summary else []:
            if r.has_speed and r.gflops and "dense_kernel" in r.layers:
                (every if "parallel" in r.layers else one).append(r.gflops)
        numpy_us = value("numpy_call", "numpy_call_ns")
        if numpy_us is not None:
            low, high = intervals["numpy_call_ns"]
            intervals["numpy_call_ns"] = (low * 1e3, high * 1e3)
        measured = {
            name: value(probe, name) if key is None else detail(probe, key, name)
            for name, (probe, key) in UNIT_COST_SOURCES.items()
        }
        return cls(
            **measured,
            numpy_call_ns=numpy_us * 1e3 if numpy_us is not None else None,
            l1_rates=l1_rates(probes),
            dense_rates=dense_rates(probes),
            numpy_rates=numpy_rates(probes),
            family_rates=family_rates(probes),
            fma_rates=fma_rates(probes),
            shuffle_rates=shuffle_rates(probes),
            peak_one_gflops=max(one, default=None),
            peak_all_gflops=max(every + one, default=None),
            **fp_issue_rates(probes),
            **fitted,
            mix_fit_error=mix_fit_error,
            intervals=intervals,
            below_resolution=frozenset(below),
            normalised=factors,
        )
