"""The compiled-rung model: a C, numba or BLAS rung's time per multiply-add from quantities
measured on its own code and on this machine.

In-core (a roofline-style bound over one iteration of the rung's hot loop: Williams, Waterman
and Patterson, *Roofline*, CACM 2009; the in-core term ``T_core`` of the ECM model, Hager and
Wellein, *Introduction to High Performance Computing for Scientists and Engineers*, 2010,
§3.3): the largest of

* ``issue``: its instructions (``worker.hotloop``: the loop read from its own assembly) at the
  core's measured rate of independent simple instructions (``scalar_fma`` probe,
  ``issue_per_ns``);
* ``fp``: its FP instructions at the measured FP issue rate (``simd_fma``: one core's FMA
  instructions per ns; all cores for a rung carrying ``parallel``);
* ``chain``: its longest loop-carried dependency chain at the measured latencies
  (``scalar_fma``: ``fadd_ns``, ``fma_ns``, ``stack_fadd_ns``; a multiply is priced as an FMA,
  the two share their units and latency on the corpus' cores);
* ``shuffle``: its FP instructions and its register shuffles together, each at its measured
  rate, adding as far as the probe found them sharing ports (``scalar_fma``:
  ``shuffle_per_ns_W``, ``fma_shuffle_per_ns_W``): a broadcast-fed register block compiled
  to ``vpermpd``/``vinsertf64x4`` on Intel, where 512-bit shuffles run on a 512-bit FMA port;
* ``l1``: its loads, its stores, or all its accesses together, each at the rate one core
  sustains accesses of its width in L1 (``scalar_fma``: ``l1_loads_per_ns_W``,
  ``l1_stores_per_ns_W``, ``l1_mixed_per_ns_W`` for two loads to a store; the widths read by
  ``worker.hotloop``, a broadcast being one scalar; ECM's load/store term ``T_nOL``).  This
  is the bound that binds a 512-bit loop on Zen 4, whose L1 does one zmm load, half a zmm
  store, and one zmm access of a two-loads-one-store mix per cycle (measured 2026-12-04; two
  loads and one store per cycle on Golden Cove).

Beside the bound, the loops around the hot loop: each entry of it (its loop nest counted at
the rung's n by gcc's arc profiling, ``worker.loop_nest``) at the measured cost of entering
and leaving a short vectorised loop (``scalar_fma``: ``loop_entry_ns``).

Memory (measured, not modelled): the rung's own kernel timed again at its own n with A and B
resident in L1 (``ResidentTiming``: every page of A and B is the same physical page, so the
same loops with the same trip counts run with every load of A and B an L1 hit; after the
samples, same worker); its time per multiply-add beyond that is the cost of the memory
hierarchy for A and B at that n (cache misses, conflict misses, bandwidth) and goes to
``memory``.  This is the in-cache vs out-of-cache comparison of Hager and Wellein §3.1, at
the very n of the timed run.  C keeps its own memory (aliasing stores would make false
dependencies).  Before it, where transparent huge pages are granted, a first step: the
kernel on copies of A and B on fresh 2 MiB pages, so 64-byte aligned (a C rung's C follows
A's alignment: ``kit.c_rung.prepare``); its time beyond that is the cost of where the
allocator put them (``placement``: 512-bit accesses split across two cache lines, TLB
misses; numpy's arrays lie 16 bytes past a cache line, where every 512-bit access spans
two; measured cases: ``docs/guides/breakdown-and-waterfall.md``).  The memory
hierarchy's row then starts from the aligned time.  What the in-core bounds miss of the
resident time (store forwarding) stays *unexplained*.  The copies are L1-resident only where
the L1 is tagged by physical address: the ``scalar_fma`` probe times loads through aliased
pages against loads within one page; where they refill from L2 (Zen's linear-address way
predictor: ``analysis.memory.ALIASED_HIT``) the memory hierarchy's row is a lower bound, and
where the copies ran slower than the rung's own arrays it is not separated; the breakdown
says which (``memory_note``).

A BLAS rung (no code of its own to read) has its flops at the dense kernel's own measured
rate: the ``dense_peak`` probe's GEMM at n = 1536 in the rung's dtype, on one thread for a
rung without ``parallel`` (its ``one_thread_gflops``), all threads otherwise.  A rung of a
lower precision (its instructions are not FP arithmetic the hot-loop reader counts) has its
operations at the best rate the ``precision_peak`` probe measured for its dtype (AMX or the
AVX-512 family): how far it is from its matrix engine.

What these do not explain — the in-core time the bounds miss (they overlap perfectly, which
no core does), or more — is *unexplained*: ``other`` in the breakdown, its own colour.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.cores import (
    parallel_cores,
    runtime_wait_share,
    timed_cores,
    working_cores,
)
from overhead_tui.analysis.memory import (
    LOWER_BOUND_UNIT,
    RESIDENT_UNIT,
    aliasing_refills,
    memory_rows,
    resident_slower,
)
from overhead_tui.analysis.rows import ranged_row
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.breakdown import BreakdownRow, CompiledQuantities
from overhead_tui.summary.measured import GeneratedCode
from overhead_tui.summary.records import ScenarioResult

CHAIN_COSTS = {"fadd": "fadd_ns", "fmul": "fma_ns", "fma": "fma_ns", "stack_fadd": "stack_fadd_ns"}
"""The ``UnitCosts`` field each kind of loop-carried step is priced at."""
L1_UNITS = {"loads": "L1-load", "stores": "L1-store", "mixed": "L1-access (loads and stores mixed)"}
"""What one priced L1 access is, by the kind of rate that binds."""
DTYPE_BYTES = {"float64": 8, "float32": 4}
"""Bytes of one scalar operand (a scalar load or store moves one)."""


def _chain_ns(code: GeneratedCode, costs: UnitCosts) -> tuple[float, float] | None:
    """(ns, steps) per iteration of the longest loop-carried chain; None without latencies."""
    best: tuple[float, float] | None = None
    for chain in code.chains:
        ns = steps = 0.0
        for kind, count in chain.items():
            latency = getattr(costs, CHAIN_COSTS.get(kind, ""), None)
            if latency is None:
                return None
            ns += count * latency
            steps += count
        if best is None or ns > best[0]:
            best = (ns, steps)
    return best or (0.0, 0.0)


def _l1_ns(code: GeneratedCode, costs: UnitCosts) -> tuple[float, str, float] | None:
    """(ns, kind, accesses) per iteration of the slowest of its loads, its stores and all its
    accesses together (``mixed``: they share the L1's address units and pipes), each access
    at the measured L1 rate of its own width (the smallest measured width at least as wide);
    None without the widths (older files) or the probe's rates for one of them."""
    if len(code.load_widths) != code.loads or len(code.store_widths) != code.stores:
        return None
    if not code.loads + code.stores:
        return None
    worst: tuple[float, str, float] | None = None
    every = code.load_widths + code.store_widths
    for kind, widths in (
        ("loads", code.load_widths),
        ("stores", code.store_widths),
        ("mixed", every),
    ):
        rates = costs.l1_rates.get(kind, {})
        ns = 0.0
        for bits in widths:
            wide_enough = [w for w in rates if w >= bits]
            if not wide_enough:
                return None
            ns += 1.0 / rates[min(wide_enough)]
        if worst is None or ns > worst[0]:
            worst = (ns, kind, float(len(widths)))
    return worst


def _shuffle_ns(code: GeneratedCode, costs: UnitCosts, fp_rate: float) -> float | None:
    """ns per iteration of its FP instructions and its register shuffles together: the
    slower of the two at its own rate, plus the faster one's time as far as the probe found
    them sharing ports (``analysis.rates.shuffle_rates``: Intel's 512-bit FMAs and shuffles
    share port 5, so there they add; on Zen they overlap).  None without shuffles or the
    probe's rate at the loop's width."""
    if not code.shuffles or not code.width_bits:
        return None
    measured = costs.shuffle_rates.get(code.width_bits)
    if measured is None:
        return None
    rate, share = measured
    fp_ns, shuffle_ns = code.fp_instructions / fp_rate, code.shuffles / rate
    return max(fp_ns, shuffle_ns) + share * min(fp_ns, shuffle_ns)


class InCoreBound(NamedTuple):
    """One bound of a compiled rung's hot loop (``in_core_rows``): what its row prices."""

    ns_per_fma: float
    events_per_fma: float
    """The events per multiply-add its row counts (instructions, FP instructions, chain steps,
    L1 accesses, FP instructions and shuffles)."""
    unit: str

    @property
    def ns_per_event(self) -> float:
        """Its row's price of one event (0 for a bound of no events)."""
        return self.ns_per_fma / self.events_per_fma if self.events_per_fma else 0.0


def in_core_rows(
    result: ScenarioResult, costs: UnitCosts
) -> tuple[list[BreakdownRow], CompiledQuantities] | None:
    """The in-core row of a rung whose hot loop was read (the largest bound) and its
    quantities; None for older files or without the probes' rates."""
    code = result.generated_code
    if code is None or not code.instructions or not code.fmas_per_iteration:
        return None
    cores = parallel_cores(result, costs)
    # all cores' FP rate at the machine's cores (its all-cores probe rate), a share of it at fewer
    fp_rate = costs.fp_issue_one * cores if costs.fp_issue_one else None
    fp_method = "at the simd_fma probe's FP instruction rate"
    width_rate = costs.fma_rates.get(code.width_bits or 128)  # scalar FP: the 128-bit pipes
    if width_rate:
        fp_rate = width_rate * cores
        fp_method = f"at the scalar_fma probe's rate of {code.width_bits or 'scalar'}-bit FMAs"
    one_core = costs.family_rates.get(code.family, (None, None))[0] if code.family else None
    if one_core and code.flops_per_instruction:  # a lower-precision dot product's own rate
        fp_rate = one_core / code.flops_per_instruction * cores
        fp_method = f"at the precision_peak probe's {code.family} instruction rate"
    if not costs.issue_per_ns or not fp_rate:
        return None
    per_fma = code.per_fma
    instructions = per_fma(code.instructions) or 0.0
    fp_instructions = per_fma(code.fp_instructions) or 0.0
    width = f"{code.width_bits}-bit" if code.width_bits else "scalar"
    per_iteration = code.fmas_per_iteration * cores  # a bound per iteration → ns per FMA
    # each bound of the hot loop: its ns per FMA, the events per FMA its row counts, the unit
    found = {
        "issue": InCoreBound(instructions / (costs.issue_per_ns * cores), instructions,
                             f"ns/instruction, issue bound ({width})"),
        "fp": InCoreBound(fp_instructions / fp_rate, fp_instructions,
                          f"ns/FP instruction at its FP rate ({width})"),
    }  # fmt: skip
    chain = _chain_ns(code, costs)
    if chain is not None:
        found["chain"] = InCoreBound(chain[0] / per_iteration, chain[1] / code.fmas_per_iteration,
                                     "ns/step of its loop-carried chain")  # fmt: skip
    l1 = _l1_ns(code, costs)
    if l1 is not None:
        unit = f"ns/{L1_UNITS[l1[1]]} at its measured rate ({width})"
        found["l1"] = InCoreBound(l1[0] / per_iteration, l1[2] / code.fmas_per_iteration, unit)
    shuffled = _shuffle_ns(code, costs, fp_rate / cores)
    if shuffled is not None:
        ops = (code.fp_instructions + code.shuffles) / code.fmas_per_iteration
        unit = f"ns/FP instruction or shuffle, their ports shared as measured ({width})"
        found["shuffle"] = InCoreBound(shuffled / per_iteration, ops, unit)
    bounds = {name: b.ns_per_fma for name, b in found.items()}
    bound = max(bounds, key=lambda k: bounds[k])
    layer = "simd_compute" if code.width_bits else "scalar_compute"
    chosen = found[bound]
    row = ranged_row(layer, chosen.events_per_fma, chosen.ns_per_event, chosen.unit)
    if "parallel" in result.layers and costs.fp_issue_one and costs.fp_issue_all:
        machine = max(1.0, costs.fp_issue_all / costs.fp_issue_one)
        got = timed_cores(result)
        share = runtime_wait_share(result)
        working = (
            f", {cores:.2f} working (perf: {share:.0%} of their samples waiting in the "
            "threading runtime)"
            if share is not None
            else ""
        )
        row = replace(
            row,
            unit=f"{row.unit}; threads got {got if got is not None else cores:.2f} of "
            f"{machine:.0f} cores{working}",
        )
    rows = [row]
    nest = code.loop_nest
    entries = nest.entries(code.loop_line) if nest is not None else 0
    if nest is not None and entries and costs.loop_entry_ns:
        entry = costs.loop_entry_ns / cores
        low, high = costs.interval("loop_entry_ns") or (entry * cores, entry * cores)
        unit = f"ns/entry of its hot loop (the loops around it; gcov's count at n={nest.n})"
        rows.append(
            ranged_row(layer, entries / nest.n**3, entry, unit, (low / cores, high / cores))
        )
    operand = (code.width_bits or 8 * DTYPE_BYTES.get(result.dtype, 8)) // 8
    widths = code.load_widths + code.store_widths
    if len(widths) == code.loads + code.stores:  # each access's own width, where read
        moved = sum(widths) / 8
    else:  # older files: every access at the loop's widest operand
        moved = (code.loads + code.stores) * operand
    quantities = CompiledQuantities(
        instructions_per_fma=instructions,
        fp_instructions_per_fma=fp_instructions,
        l1_bytes_per_fma=per_fma(moved),
        vector_width_bits=code.width_bits,
        issue_ns=bounds["issue"],
        fp_ns=bounds["fp"],
        chain_ns=bounds.get("chain"),
        l1_ns=bounds.get("l1"),
        shuffle_ns=bounds.get("shuffle"),
        in_core_bound=bound,
        threads=round(cores),
        loop_entries_per_fma=entries / nest.n**3 if nest and entries else None,
        loop_nest_n=nest.n if nest and entries else None,
        methods={
            "instructions_per_fma": code.method + " (one iteration of the hot loop)",
            "issue_ns": "at the scalar_fma probe's issue rate (independent adds)",
            "fp_ns": fp_method,
            "chain_ns": "loop-carried chains at the scalar_fma probe's latencies",
            **(
                {
                    "loop_entries_per_fma": "gcc's arc counts of one call at its n (gcov), each "
                    "entry at the scalar_fma probe's loop_entry_ns"
                }
                if len(rows) > 1
                else {}
            ),
            **(
                {"l1_ns": "its loads, stores or both at the scalar_fma probe's L1 rates"}
                if l1 is not None
                else {}
            ),
            **(
                {
                    "shuffle_ns": "its FP instructions and register shuffles at the scalar_fma "
                    "probe's rates, adding as far as they share ports"
                }
                if shuffled is not None
                else {}
            ),
        },
    )
    return rows, quantities


def dense_row(result: ScenarioResult, costs: UnitCosts) -> BreakdownRow | None:
    """A BLAS rung's flops at the dense kernel's measured rate; None without it.

    A rung carrying ``parallel`` runs at the all-threads rate, or at the one-thread rate times
    the cores its threads measurably got (:func:`timed_cores`) where that is lower: a library
    that kept its product on one thread (XLA's dot at n = 1024 here), or a busy neighbour."""
    parallel = "parallel" in result.layers
    one, every = costs.dense_rates.get(result.dtype, (None, None))
    rate = every if parallel else one
    threads = "all threads" if parallel else "1 thread"
    got = working_cores(timed_cores(result), result) if parallel else None
    if got is not None and one and (every is None or one * got < every):
        waiting = runtime_wait_share(result)
        rate = one * max(0.05, got)
        threads = f"1 thread × the {got:.2f} cores it got" + (
            f" working (perf: {waiting:.0%} waiting in the threading runtime)" if waiting else ""
        )
    if not rate:
        return None
    layers = [x for x in ("dense_kernel", "simd_compute") if x in result.layers]
    return ranged_row(
        layers[0] if layers else "scalar_compute",
        2.0,
        1.0 / rate,
        f"ns/flop at the {result.dtype} peak kernel's rate ({threads})",
    )


def compiled_rows(
    result: ScenarioResult, costs: UnitCosts, measured: unc.Interval
) -> tuple[list[BreakdownRow], CompiledQuantities | None] | None:
    """The compiled-rung model's rows and quantities (module docstring), or None when the rung
    has neither a read hot loop nor a dense kernel rate (the caller falls back to peaks)."""
    found = in_core_rows(result, costs)
    if found is not None:
        rows, quantities = found
        slower = resident_slower(result, measured)
        note = (slower or aliasing_refills(costs)) if result.resident is not None else ""
        quantities = replace(quantities, memory_note=note)
        unit = None if slower else LOWER_BOUND_UNIT if note else RESIDENT_UNIT
        memory = memory_rows(result, measured, unit)
        if memory is None:
            return rows, quantities
        more, in_l1, n, placement_ns = memory
        methods = {
            **quantities.methods,
            "memory_ns": "its time (or its time with A and B aligned) minus the "
            "same kernel's with A and B resident in L1",
        }
        if placement_ns is not None:
            methods["placement_ns"] = (
                "its time minus the same kernel's on copies of A and B on fresh 2 MiB "
                "pages (64-byte aligned)"
            )
        quantities = replace(quantities, placement_ns=placement_ns)
        if in_l1 is None or n is None:
            return [*rows, *more], replace(quantities, methods=methods)
        memory_ns = more[-1].ns_per_fma or 0.0
        return [*rows, *more], _with(quantities, in_l1, n, memory_ns, methods)
    if result.generated_code is None and (
        "dense_kernel" in result.layers or result.dtype not in ("float64", "float32")
    ):
        dense = dense_row(result, costs)
        if dense is None:
            return None
        return [dense], CompiledQuantities(
            in_core_bound="dense kernel",
            threads=result.blas_threads,
            methods={
                "flops": "at the measured rate of its dtype's peak kernel (dense_peak: the "
                "GEMM at n = 1536; precision_peak for the lower precisions)"
            },
        )
    return None


def _with(
    quantities: CompiledQuantities, in_l1: float, n: int, memory: float, methods: dict[str, str]
) -> CompiledQuantities:

    return replace(quantities, resident_ns=in_l1, resident_n=n, memory_ns=memory, methods=methods)
