"""Latency-bound GFLOP/s of compiled scalar code: a dependent multiply-add chain, and the
latencies and issue rate the compiled-rung model prices a hot loop with.

``acc = acc * x + y`` repeated in C (``kit.chains.fp_chain``, built with
``-ffp-contract=off``: a multiply, then an add, no FMA contraction or reassociation), each
step waiting for the previous one: the rate of scalar code that the hardware cannot overlap
(2 flops per step).  ``cycles_per_step`` divides by the clock measured in the same process
(the ``imul`` chain, interleaved): FP multiply + add latency, 6–8 cycles on current cores.

Details for ``analysis.compiled`` (each interleaved with the clock chain, ns and cycles):

* ``fadd_ns`` / ``fadd_cycles``: one dependent ``addsd`` (2 cycles on Golden Cove, 3 on
  Zen 3–5, 4 on Skylake: the numbers are measured here, those are what to expect).
* ``fma_ns`` / ``fma_cycles``: one dependent scalar FMA (4 on all of those); absent without FMA.
* ``stack_fadd_ns`` / ``stack_fadd_cycles``: a sum kept in a stack slot (load, add, store,
  the next load forwarded from the store), as ``-O0`` code keeps its accumulator.
* ``issue_per_ns`` / ``issue_per_cycle``: independent simple instructions retired per ns and
  per cycle (``issue_kernel``: 16 adds on 8 registers plus the loop's own 3): the issue bound.
* ``fma_per_ns_W`` / ``fma_per_cycle_W``: independent ``vfmadd231pd`` of W bits (128, 256,
  512 where the CPU has them) one core retires (``fma_throughput``): the FP bound of code of
  that width.  Zen 4 runs 2 of 256 bits a cycle but 1 of 512 (two halves on its 256-bit
  pipes); Intel's server cores 2 of 512.
* ``shuffle_per_ns_W`` / ``shuffle_per_cycle_W``: independent ``vpermpd`` of W bits (256,
  512) one core retires alone; ``fma_shuffle_per_ns_W``: FMAs and shuffles together, three to
  two (``shuffle_throughput``).  Where the two share ports (Intel's 512-bit FMA on port 5,
  where every shuffle runs) the mix runs at the FMA rate; where they do not (Zen) at about
  their sum: the model reads which from the three (``analysis.rates.shuffle_rates``).
* ``loop_entry_ns`` / ``loop_entry_cycles``: entering a short vectorised loop once (its set-up
  and its leaving: ``ROWS_SOURCE``, ``c[i, :] += a[i, p] * b[p, :]`` over rows of 16 and 64
  elements in L1, built ``-O3 -march=native`` as the C rungs are): the per-entry time at 16
  elements minus 16 elements at the per-element time the two lengths differ by.  The
  compiled-rung model prices each entry of a rung's hot loop (its loop nest counted by
  ``worker.loop_nest``) at it: the loops around the hot loop.
* ``l1_loads_per_ns_W`` / ``l1_loads_per_cycle_W``, ``l1_stores_…`` and ``l1_mixed_…``:
  independent loads, stores, or both two to one, of W bits (64, 128, 256, 512 where the CPU
  has them) one core sustains on a buffer in L1 (``l1_kernel``): the L1 bound.  Zen 4 does
  2 ymm loads but 1 zmm load per cycle, half a zmm store, and one zmm access of the mix: the
  rate is measured at each width and mix, never scaled from another.
* ``aliased_load_ns`` and ``page_load_ns``: one of 32 independent loads of a double at
  the same page offset of 32 pages that are one physical page (``resident_inputs``, the
  compiled-rung model's L1-resident copies), and one of 32 loads from 32 lines of one page
  (``ALIAS_SOURCE``).  Their ratio says whether those copies are L1-resident on this CPU:
  about 1 where the L1 is tagged by physical address, as on Intel's cores; about 4 on
  Zen 3 (2026-12-07), whose L1 picks a line's way by a tag of the linear address that first
  brought it in, so each other linear alias of the line refills it from L2 (AMD, *Software
  Optimization Guide for Family 17h*, 55723, §2.6.2.2, "linear aliasing";
  ``analysis.compiled.ALIASED_HIT``).
"""

import contextlib
import statistics

from overhead_tui.api import (
    FMA_PER_ITERATION,
    FMA_WIDTHS,
    L1_KINDS,
    SHUFFLE_WIDTHS,
    SHUFFLES_PER_ITERATION,
    ProbeMeasurement,
    build,
    chain_call,
    chain_ghz,
    chain_library,
    chain_steps,
    l1_widths,
    resident_inputs,
)

ROWS_SOURCE = r"""
void rows_axpy(const double *a, const double *b, double *c, int rows, int depth, int length,
               long repeats) {
    for (long r = 0; r < repeats; r++)
        for (int i = 0; i < rows; i++)
            for (int p = 0; p < depth; p++) {
                const double aip = a[i * depth + p];
                const double *restrict brow = b + (long)p * length;
                double *restrict crow = c + (long)i * length;
                for (int j = 0; j < length; j++) crow[j] += aip * brow[j];
            }
}
"""
ROWS_CDEF = "void rows_axpy(const double *, const double *, double *, int, int, int, long);"
ROWS, DEPTH, SHORT, LONG = 4, 4, 16, 64
"""Rows of C, rows of B, and the two loop lengths: B (4 × 64 doubles, 2 KiB) and C (2 KiB)
share one 4 KiB page, B in its first half and C in its second, so no load of B has the low
12 address bits of a store to C (no 4K aliasing: the probe's time does not depend on where
the allocator put them)."""
ALIAS_SOURCE = r"""
double strided_loads(const double *base, long stride, long repeats) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (long r = 0; r < repeats; r++)
        for (long q = 0; q < 32; q += 4) {
            s0 += base[q * stride];
            s1 += base[(q + 1) * stride];
            s2 += base[(q + 2) * stride];
            s3 += base[(q + 3) * stride];
        }
    return s0 + s1 + s2 + s3;
}
"""
ALIAS_CDEF = "double strided_loads(const double *, long, long);"
ALIAS_PAGES = 32
"""Pages (4 KiB) aliased to one physical page, one load each: within every core's L1 TLB."""
ALIAS_REPEATS = 50_000
"""Rounds of the 32 loads per timed call (1.6 M loads, 1–6 ms)."""
ROWS_FMAS = 1 << 21
"""Multiply-adds of one timed call at either length (about 0.2 ms)."""

NAME = "scalar_fma"
TITLE = "compiled scalar chain"
UNIT = "GFLOP/s"
LAYER = "scalar_compute"
REQUIRES = ("cffi",)
STEPS = 1_000_000
IMUL_ITERATIONS = 500_000
LATENCY_ITERATIONS = 200_000
"""Iterations of each latency chain (8 steps each, ``chain_steps``):
1.6 M dependent steps, 1–4 ms a call."""
L1_ITERATIONS = 250_000
"""Iterations of each L1 kernel (8 or 12 accesses each): 2–3 M accesses, 0.3–1.8 ms a call."""


def _per_step(ctx, run, steps, clock):
    """(median ns per step, median cycles per step or None) of ``run`` timed beside ``clock``."""
    pairs = ctx.time_pair(run, clock)
    ns = statistics.median(a / steps * 1e9 for a, _ in pairs)
    clocks = [chain_ghz("imul", b, IMUL_ITERATIONS) for _, b in pairs]
    if None in clocks:
        return ns, None
    cycles = statistics.median(g * 1e9 * a / steps for g, (a, _) in zip(clocks, pairs, strict=True))
    return ns, cycles


def measure(ctx):
    lib = chain_library()
    clock = chain_call(lib, "imul", IMUL_ITERATIONS)
    pairs = ctx.time_pair(lambda: lib.fp_chain(STEPS, 0.999999, 1e-9), clock)
    samples = [2 * STEPS / a / 1e9 for a, _ in pairs]
    details = {"steps": STEPS}
    clocks = [chain_ghz("imul", b, IMUL_ITERATIONS) for _, b in pairs]
    if None not in clocks:
        details["cycles_per_step"] = statistics.median(
            ghz * 1e9 * a / STEPS for ghz, (a, _) in zip(clocks, pairs, strict=True)
        )
    steps = chain_steps("fadd", LATENCY_ITERATIONS)
    chains = {
        "fadd": lambda: lib.fadd_chain(LATENCY_ITERATIONS, 1.0, 1e-9),
        "stack_fadd": lambda: lib.stack_fadd_chain(LATENCY_ITERATIONS, 1e-9),
    }
    if lib.fma_chain(1, 1.0, 0.5) != -1.0:
        chains["fma"] = lambda: lib.fma_chain(LATENCY_ITERATIONS, 1.0, 0.999999)
    for name, run in chains.items():
        ns, cycles = _per_step(ctx, run, steps, clock)
        details[f"{name}_ns"] = ns
        if cycles is not None:
            details[f"{name}_cycles"] = cycles
    instructions = chain_steps("issue", LATENCY_ITERATIONS)
    ns, cycles = _per_step(ctx, lambda: lib.issue_kernel(LATENCY_ITERATIONS), instructions, clock)
    details["issue_per_ns"] = 1.0 / ns
    if cycles is not None:
        details["issue_per_cycle"] = 1.0 / cycles
    for width in FMA_WIDTHS if l1_widths() else ():
        if lib.fma_throughput(1, width) < 0:  # no FMA3 or no such width
            continue
        run = lambda w=width: lib.fma_throughput(L1_ITERATIONS, w)  # noqa: E731
        ns, cycles = _per_step(ctx, run, L1_ITERATIONS * FMA_PER_ITERATION, clock)
        details[f"fma_per_ns_{width}"] = 1.0 / ns
        if cycles is not None:
            details[f"fma_per_cycle_{width}"] = 1.0 / cycles
    for width in SHUFFLE_WIDTHS if l1_widths() else ():
        if lib.shuffle_throughput(1, width, 0) < 0:  # no such width
            continue
        for mix, key, per_iteration in (
            (0, "shuffle", SHUFFLES_PER_ITERATION),
            (1, "fma_shuffle", SHUFFLES_PER_ITERATION + FMA_PER_ITERATION),
        ):
            run = lambda w=width, m=mix: lib.shuffle_throughput(L1_ITERATIONS, w, m)  # noqa: E731
            ns, cycles = _per_step(ctx, run, L1_ITERATIONS * per_iteration, clock)
            details[f"{key}_per_ns_{width}"] = 1.0 / ns
            if cycles is not None:
                details[f"{key}_per_cycle_{width}"] = 1.0 / cycles
    for width in l1_widths():
        for kind, (code, per_iteration) in L1_KINDS.items():
            if lib.l1_kernel(1, width, code) < 0:  # the CPU lacks that width
                continue
            run = lambda w=width, k=code: lib.l1_kernel(L1_ITERATIONS, w, k)  # noqa: E731
            ns, cycles = _per_step(ctx, run, L1_ITERATIONS * per_iteration, clock)
            details[f"l1_{kind}_per_ns_{width}"] = 1.0 / ns
            if cycles is not None:
                details[f"l1_{kind}_per_cycle_{width}"] = 1.0 / cycles
    details.update(_loop_entry(ctx, clock))
    details.update(_aliased_loads(ctx, clock))
    return ProbeMeasurement(samples, details)


def _aliased_library():
    return build("aliased_loads", ALIAS_SOURCE, ["-O2"], "float64", cdef=ALIAS_CDEF)


def _rows_library():
    return build("loop_entry", ROWS_SOURCE, ["-O3", "-march=native"], "float64", cdef=ROWS_CDEF)


def prepare():
    """Build the chains, the row loop and the aliased loads (a run builds them before anything
    is timed; a kernel that cannot be built is left to ``measure``, which goes on without)."""
    chain_library()
    for library in (_rows_library, _aliased_library):
        with contextlib.suppress(Exception):
            library()


def _aliased_loads(ctx, clock):
    """``aliased_load_ns`` and ``page_load_ns`` (module docstring); none where pages cannot
    be aliased (not Linux) or the kernel cannot be built."""
    import numpy as np

    try:
        ffi, lib, _ = _aliased_library()
    except Exception:
        return {}
    order = int((ALIAS_PAGES * 4096 // 8) ** 0.5)  # n × n doubles: ALIAS_PAGES pages
    aliased = resident_inputs(order, "float64")
    if aliased is None:
        return {}
    page = np.zeros(1024)  # 8 KiB: one whole 4 KiB page inside it
    start = (-page.ctypes.data % 4096) // 8
    page[start : start + 512] = 1e-3
    found = {}
    for key, array, stride in (
        ("aliased_load_ns", aliased[0].reshape(-1), 512),  # one load a page
        ("page_load_ns", page[start:], 8),  # one load a line
    ):
        pointer = ffi.from_buffer("double[]", array)
        run = lambda p=pointer, st=stride: lib.strided_loads(p, st, ALIAS_REPEATS)  # noqa: E731
        found[key], _ = _per_step(ctx, run, ALIAS_REPEATS * ALIAS_PAGES, clock)
    return found


def _loop_entry(ctx, clock):
    """``loop_entry_ns`` (and ``_cycles``) from ``rows_axpy`` at the two lengths; none when it
    cannot be built or the per-entry time does not grow with the length (no fit)."""
    import numpy as np

    try:
        ffi, lib, _ = _rows_library()
    except Exception:
        return {}
    a = np.full(ROWS * DEPTH, 1e-3)
    page = np.zeros(1024)  # 8 KiB: one 4 KiB page of it holds B, then C
    start = (-page.ctypes.data % 4096) // 8
    b = page[start : start + DEPTH * LONG]
    c = page[start + 256 : start + 256 + ROWS * LONG]
    b[:] = 1e-3
    pa, pb, pc = (ffi.from_buffer("double[]", x) for x in (a, b, c))
    per_entry = {}
    for length in (SHORT, LONG):
        repeats = ROWS_FMAS // (ROWS * DEPTH * length)
        run = lambda n=length, r=repeats: lib.rows_axpy(pa, pb, pc, ROWS, DEPTH, n, r)  # noqa: E731
        per_entry[length] = _per_step(ctx, run, repeats * ROWS * DEPTH, clock)
    ns_short, cycles_short = per_entry[SHORT]
    ns_long, cycles_long = per_entry[LONG]
    per_element = (ns_long - ns_short) / (LONG - SHORT)
    entry = ns_short - SHORT * per_element
    if per_element <= 0 or entry <= 0:
        return {}
    found = {"loop_entry_ns": entry}
    if cycles_short is not None and cycles_long is not None:
        slope = (cycles_long - cycles_short) / (LONG - SHORT)
        found["loop_entry_cycles"] = cycles_short - SHORT * slope
    return found
