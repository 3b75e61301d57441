"""Dependent instruction chains in C: the clock in cycles, and the latency of scalar code.

One small C library (built with :mod:`overhead_tui.kit.cbuild`, cached) used by the
``clock``, ``scalar_fma`` and ``simd_fma`` probes:

* ``imul_chain(iterations, x, m)``: ``x = x * m``, 8 per iteration, in inline assembly
  (x86 ``imul r64, r64``; ARM ``mul``).  :data:`CYCLES` ``imul``: 3 cycles per step on every
  x86 core since Nehalem (Agner Fog, *Instruction tables*, 2022: IMUL r64,r64 latency 3 on
  Nehalem … Golden Cove and Zen 1–5; Intel Optimization Reference Manual, appendix D; AMD
  Software Optimization Guides 56305/56665/57647/58455).  On ARM the latency is not
  tabulated here: the chain is timed but not used.
* ``add_xor_chain(iterations, x, m, a)``: ``x = (x + a) ^ m``, registers only (never an
  immediate: Golden Cove folds ``add $1`` at rename, so an ``(x + 1) ^ m`` chain reads 1.5–2×
  too fast there), 2 cycles per step on every x86 and ARM core (ADD/XOR r,r latency 1).
* ``fp_chain(iterations, x, y)``: ``acc = acc * x + y`` in double, compiled with
  ``-ffp-contract=off`` (a multiply then an add, each waiting for the previous): the rate of
  scalar code the hardware cannot overlap.
* The latencies the compiled-rung model prices a loop-carried chain with (``scalar_fma``
  probe, ``analysis.compiled``), :data:`UNROLL` dependent steps per iteration each:
  ``fadd_chain`` (``addsd`` / ``fadd d``), ``fma_chain`` (``vfmadd231sd`` / ``fmadd d``;
  returns -1 without FMA, checked with ``__builtin_cpu_supports`` on x86),
  ``stack_fadd_chain`` (an accumulator in a ``volatile`` stack slot: load, add, store, the
  next load forwarded from the store: what ``-O0`` code does with a running sum).
* ``issue_kernel(iterations)``: 16 independent register adds on 8 registers per
  iteration (two per register, so each register's chain is half the adds): the core's
  sustained rate of simple instructions, the issue bound of the model.
* ``shuffle_throughput(iterations, width, mix)``: 8 independent ``vpermpd`` (a lane-crossing
  register shuffle) of ``width`` bits per iteration, alone or interleaved with 12 FMAs: the
  shuffle unit's rate, and whether shuffles and FMAs share ports (Intel's server cores run
  512-bit shuffles on port 5, one of the two 512-bit FMA ports; Zen runs them on pipes of
  their own: Intel Optimization Reference Manual; AMD 57647): the shuffle term of the model.
* ``l1_kernel(iterations, width, kind)``: 8 independent loads (``kind`` 0), 8 stores (1), or
  8 loads and 4 stores interleaved two to one (2: the accesses of ``C[i, j] += a * B[k, j]``)
  of ``width`` bits per iteration (x86: ``movq`` 64, ``(v)movupd`` xmm 128, ymm 256, zmm
  512) on one 4 KiB buffer that stays in L1: how many L1 accesses of that width one core
  sustains alone and mixed (loads and stores share address units and the L1 pipes: Zen 4
  runs the mix at about one zmm access a cycle, not two loads and half a store), the L1
  bound of the model (the load/store term ``T_nOL`` of the ECM model, Hager and
  Wellein §3.3).  The rates differ by far more than the width between cores: Zen 4 splits a
  512-bit access into two 256-bit ones (one zmm load and half a zmm store per cycle: AMD
  57647 §2.12), Golden Cove does two zmm loads and one zmm store per cycle (Intel
  Optimization Reference Manual, Golden Cove).  Returns -1 where the CPU lacks the width
  (``__builtin_cpu_supports``) or on other architectures (no L1 kernels there yet).

Which instructions were built is checked in the assembly (:func:`chain_instructions`).
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Protocol

UNROLL = 8
"""Chain steps per loop iteration (the loop counter runs beside the chain)."""
CYCLES: dict[str, dict[str, int | None]] = {
    "x86_64": {"imul": 3, "add_xor": 2},
    "aarch64": {"imul": None, "add_xor": 2},
}
"""Cycles per chain step per architecture (sources in the module docstring); None: not
tabulated (the chain is timed and reported, not used for the clock)."""
MNEMONICS = {
    "x86_64": {"imul": "imul", "add_xor": "xor"},
    "aarch64": {"imul": "mul", "add_xor": "eor"},
}
"""The instruction each chain repeats :data:`UNROLL` times, per architecture."""
FLAGS = ["-O2", "-ffp-contract=off"]
SOURCE = r"""
#include <stdint.h>
#if defined(__x86_64__)
#define MUL "imul %1, %0\n\t"
#define ADD_XOR "add %2, %0\n\txor %1, %0\n\t"
#elif defined(__aarch64__)
#define MUL "mul %0, %0, %1\n\t"
#define ADD_XOR "add %0, %0, %2\n\teor %0, %0, %1\n\t"
#else
#error "the clock chains exist for x86-64 and aarch64 only"
#endif
#define X8(s) s s s s s s s s

uint64_t imul_chain(uint64_t iterations, uint64_t x, uint64_t m) {
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(X8(MUL) : "+r"(x) : "r"(m));
    return x;
}

uint64_t add_xor_chain(uint64_t iterations, uint64_t x, uint64_t m, uint64_t a) {
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(X8(ADD_XOR) : "+r"(x) : "r"(m), "r"(a));
    return x;
}

double fp_chain(uint64_t iterations, double x, double y) {
    double acc = 1.0;
    for (uint64_t i = 0; i < iterations; i++) acc = acc * x + y;
    return acc;
}

#if defined(__x86_64__)
#define FADD "addsd %1, %0\n\t"
#define FMA "vfmadd231sd %1, %1, %0\n\t"
#define FP_IN "x"
#define ADD_R(r) "add %8, %" #r "\n\t"
#else
#define FADD "fadd %d0, %d0, %d1\n\t"
#define FMA "fmadd %d0, %d1, %d1, %d0\n\t"
#define FP_IN "w"
#define ADD_R(r) "add %" #r ", %" #r ", %8\n\t"
#endif

double fadd_chain(uint64_t iterations, double x, double y) {
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(X8(FADD) : "+" FP_IN(x) : FP_IN(y));
    return x;
}

double fma_chain(uint64_t iterations, double x, double y) {
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("fma")) return -1.0;
#endif
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(X8(FMA) : "+" FP_IN(x) : FP_IN(y));
    return x;
}

double stack_fadd_chain(uint64_t iterations, double y) {
    volatile double s = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        s = s + y; s = s + y; s = s + y; s = s + y;
        s = s + y; s = s + y; s = s + y; s = s + y;
    }
    return s;
}

uint64_t issue_kernel(uint64_t iterations) {
    uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8, k = 1;
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(
            ADD_R(0) ADD_R(1) ADD_R(2) ADD_R(3) ADD_R(4) ADD_R(5) ADD_R(6) ADD_R(7)
            ADD_R(0) ADD_R(1) ADD_R(2) ADD_R(3) ADD_R(4) ADD_R(5) ADD_R(6) ADD_R(7)
            : "+r"(a), "+r"(b), "+r"(c), "+r"(d), "+r"(e), "+r"(f), "+r"(g), "+r"(h)
            : "r"(k));
    return a + b + c + d + e + f + g + h;
}

#if defined(__x86_64__)
static char l1_buffer[4096] __attribute__((aligned(64)));
#define LD(op, r, i) op " " #i "*64(%1), %%" r #i "\n\t"
#define ST(op, r, i) op " %%" r #i ", " #i "*64(%1)\n\t"
#define EIGHT(M, op, r) M(op, r, 0) M(op, r, 1) M(op, r, 2) M(op, r, 3) \
    M(op, r, 4) M(op, r, 5) M(op, r, 6) M(op, r, 7)
#define MIX(op, r) LD(op, r, 0) LD(op, r, 1) ST(op, r, 8) LD(op, r, 2) LD(op, r, 3) \
    ST(op, r, 9) LD(op, r, 4) LD(op, r, 5) ST(op, r, 10) LD(op, r, 6) LD(op, r, 7) ST(op, r, 11)
#define L1_LOOP(body) \
    for (uint64_t i = 0; i < iterations; i++) \
        __asm__ volatile(body : "+r"(i) : "r"(l1_buffer) \
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
                           "memory")
#define VZEROUPPER __asm__ volatile("vzeroupper")
#endif

#if defined(__x86_64__)
/* 12 independent FMAs (accumulators 0-11, operands 12 and 13): more than latency x pipes
   (4 x 2) on the cores of the corpus, so the loop runs at the FMA throughput of the width */
#define F(r, i) "vfmadd231pd %%" r "12, %%" r "13, %%" r #i "\n\t"
#define TWELVE(r) F(r, 0) F(r, 1) F(r, 2) F(r, 3) F(r, 4) F(r, 5) \
    F(r, 6) F(r, 7) F(r, 8) F(r, 9) F(r, 10) F(r, 11)
#define FMA_LOOP(body) \
    for (uint64_t i = 0; i < iterations; i++) \
        __asm__ volatile(body : "+r"(i) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                         "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13")
#endif

/* FMA instructions of ``width`` bits (128, 256, 512) at their throughput, 12 an iteration;
   -1 where the CPU lacks FMA3 or that width */
int64_t fma_throughput(uint64_t iterations, int width) {
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("fma")) return -1;
    if (width == 128) FMA_LOOP(TWELVE("xmm"));
    else if (width == 256 && __builtin_cpu_supports("avx2")) FMA_LOOP(TWELVE("ymm"));
    else if (width == 512 && __builtin_cpu_supports("avx512f")) FMA_LOOP(TWELVE("zmm"));
    else return -1;
    __asm__ volatile("vzeroupper");
    return (int64_t)iterations;
#else
    (void)iterations; (void)width;
    return -1;
#endif
}

#if defined(__x86_64__)
/* 8 independent lane-crossing shuffles (vpermpd of register 12 into 14 and 15, which nothing
   reads): the shuffle unit's throughput; with ``mix``, interleaved with the 12 FMAs above
   (three FMAs to two shuffles, as a broadcast-fed register block has them) */
#define P(r, d) "vpermpd $0x4e, %%" r "12, %%" r #d "\n\t"
#define EIGHT_P(r) P(r, 14) P(r, 15) P(r, 14) P(r, 15) P(r, 14) P(r, 15) P(r, 14) P(r, 15)
#define MIXED_P(r) F(r, 0) F(r, 1) F(r, 2) P(r, 14) P(r, 15) F(r, 3) F(r, 4) F(r, 5) \
    P(r, 14) P(r, 15) F(r, 6) F(r, 7) F(r, 8) P(r, 14) P(r, 15) F(r, 9) F(r, 10) F(r, 11) \
    P(r, 14) P(r, 15)
#define SHUFFLE_LOOP(body) \
    for (uint64_t i = 0; i < iterations; i++) \
        __asm__ volatile(body : "+r"(i) : : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
                         "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", \
                         "xmm14", "xmm15")
#endif

/* shuffles of ``width`` bits (256, 512) at their throughput, alone (mix 0: 8 an iteration)
   or among FMAs (mix 1: 12 FMAs and 8 shuffles an iteration); -1 without that width */
int64_t shuffle_throughput(uint64_t iterations, int width, int mix) {
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("fma")) return -1;
    if (width == 256 && __builtin_cpu_supports("avx2")) {
        if (mix) SHUFFLE_LOOP(MIXED_P("ymm")); else SHUFFLE_LOOP(EIGHT_P("ymm"));
    } else if (width == 512 && __builtin_cpu_supports("avx512f")) {
        if (mix) SHUFFLE_LOOP(MIXED_P("zmm")); else SHUFFLE_LOOP(EIGHT_P("zmm"));
    } else return -1;
    __asm__ volatile("vzeroupper");
    return (int64_t)iterations;
#else
    (void)iterations; (void)width; (void)mix;
    return -1;
#endif
}

/* kind 0: 8 loads, 1: 8 stores, 2: 8 loads and 4 stores interleaved (2 loads, 1 store) */
int64_t l1_kernel(uint64_t iterations, int width, int kind) {
#if defined(__x86_64__)
    if (width == 64 && kind == 0) L1_LOOP(EIGHT(LD, "movq", "xmm"));
    else if (width == 64 && kind == 1) L1_LOOP(EIGHT(ST, "movq", "xmm"));
    else if (width == 64 && kind == 2) L1_LOOP(MIX("movq", "xmm"));
    else if (width == 128 && kind == 0) L1_LOOP(EIGHT(LD, "movupd", "xmm"));
    else if (width == 128 && kind == 1) L1_LOOP(EIGHT(ST, "movupd", "xmm"));
    else if (width == 128 && kind == 2) L1_LOOP(MIX("movupd", "xmm"));
    else if (width == 256 && kind <= 2 && __builtin_cpu_supports("avx")) {
        if (kind == 0) L1_LOOP(EIGHT(LD, "vmovupd", "ymm"));
        else if (kind == 1) L1_LOOP(EIGHT(ST, "vmovupd", "ymm"));
        else L1_LOOP(MIX("vmovupd", "ymm"));
        VZEROUPPER;
    } else if (width == 512 && kind <= 2 && __builtin_cpu_supports("avx512f")) {
        if (kind == 0) L1_LOOP(EIGHT(LD, "vmovupd", "zmm"));
        else if (kind == 1) L1_LOOP(EIGHT(ST, "vmovupd", "zmm"));
        else L1_LOOP(MIX("vmovupd", "zmm"));
        VZEROUPPER;
    } else return -1;
    return (int64_t)iterations;
#else
    (void)iterations; (void)width; (void)kind;
    return -1;
#endif
}
"""
CDEF = """
int64_t fma_throughput(uint64_t iterations, int width);
int64_t shuffle_throughput(uint64_t iterations, int width, int mix);
uint64_t imul_chain(uint64_t iterations, uint64_t x, uint64_t m);
uint64_t add_xor_chain(uint64_t iterations, uint64_t x, uint64_t m, uint64_t a);
double fp_chain(uint64_t iterations, double x, double y);
double fadd_chain(uint64_t iterations, double x, double y);
double fma_chain(uint64_t iterations, double x, double y);
double stack_fadd_chain(uint64_t iterations, double y);
uint64_t issue_kernel(uint64_t iterations);
int64_t l1_kernel(uint64_t iterations, int width, int kind);
"""
ISSUE_INSTRUCTIONS = 16
"""Independent adds per iteration of ``issue_kernel`` (the loop's own increment, compare and
branch come on top: 18–19 instructions an iteration, see :func:`issue_per_cycle`)."""
LOOP_INSTRUCTIONS = 3
"""The loop's own instructions per iteration beside the unrolled body (increment, compare,
branch; ``cc -S`` of ``issue_kernel`` at ``-O2``)."""
IMUL_ARGS = (3, 0x9E3779B97F4A7C15)
"""(start, multiplier) of the imul chain: an odd multiplier keeps x from reaching 0."""
ADD_XOR_ARGS = (3, 0x5555, 0x1234567)
"""(start, xor mask, addend) of the add/xor chain."""


FMA_PER_ITERATION = 12
"""Independent FMAs an iteration of ``fma_throughput`` issues."""
FMA_WIDTHS = (128, 256, 512)
"""Vector widths (bits) ``fma_throughput`` has on x86-64."""

SHUFFLE_WIDTHS = (256, 512)
"""Vector widths (bits) ``shuffle_throughput`` has on x86-64."""
SHUFFLES_PER_ITERATION = 8
"""Shuffles an iteration of ``shuffle_throughput`` issues, alone or among the 12 FMAs."""

L1_KINDS = {"loads": (0, 8), "stores": (1, 8), "mixed": (2, 12)}
"""{kind: (``l1_kernel``'s kind argument, accesses per iteration)}."""
L1_WIDTHS = {"x86_64": (64, 128, 256, 512)}
"""Access widths (bits) ``l1_kernel`` has per architecture (none elsewhere yet)."""


def l1_widths() -> tuple[int, ...]:
    """The widths of this architecture's L1 kernels (empty where there are none)."""
    return L1_WIDTHS.get(architecture(), ())


def architecture() -> str:
    """``x86_64`` or ``aarch64`` (``platform.machine()`` normalised); others as they are."""
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


class ChainLibrary(Protocol):
    """The chains' library as cffi calls it (:data:`CDEF`; the clock's chains here)."""

    def imul_chain(self, iterations: int, x: int, m: int, /) -> int: ...

    def add_xor_chain(self, iterations: int, x: int, m: int, a: int, /) -> int: ...


def chain_library() -> object:
    """The built chains (cffi ``lib``: ``imul_chain``, ``add_xor_chain``, ``fp_chain``).

    Raises:
        Unavailable: no compiler, or an architecture without chains.
    """
    from overhead_tui.kit.cbuild import Unavailable, build

    if architecture() not in CYCLES:
        raise Unavailable(f"no clock chains for {architecture()} (x86-64 and aarch64 only)")
    _, lib, _ = build("chains", SOURCE, FLAGS, "float64", cdef=CDEF)
    return lib


def chain_instructions() -> dict[str, int]:
    """How many times each chain's instruction appears in the generated code (``cc -S``):
    :data:`UNROLL` each when the chains were built as written."""
    from overhead_tui.kit.cbuild import assembly

    lines = [line.split() for line in assembly(SOURCE, FLAGS).splitlines()]
    mnemonics = MNEMONICS.get(architecture(), {})
    return {chain: sum(1 for w in lines if w[:1] == [m]) for chain, m in mnemonics.items()}


def chain_call(lib: ChainLibrary, chain: str, iterations: int) -> Callable[[], int]:
    """A call of one chain (``imul`` or ``add_xor``) over ``iterations``, with the start
    values of :data:`IMUL_ARGS` / :data:`ADD_XOR_ARGS`, to time (then :func:`chain_ghz`)."""
    runs: dict[str, tuple[Callable[..., int], tuple[int, ...]]] = {
        "imul": (lib.imul_chain, IMUL_ARGS),
        "add_xor": (lib.add_xor_chain, ADD_XOR_ARGS),
    }
    run, args = runs[chain]  # bound here, not looked up in each timed call
    return lambda: run(iterations, *args)


def chain_steps(chain: str, iterations: int) -> int:
    """Dependent steps (latency chains) or instructions (``issue``) in ``iterations`` of a
    chain of this library: :data:`UNROLL` a step per iteration, or the issue kernel's
    :data:`ISSUE_INSTRUCTIONS` + :data:`LOOP_INSTRUCTIONS`."""
    if chain == "issue":
        return iterations * (ISSUE_INSTRUCTIONS + LOOP_INSTRUCTIONS)
    return iterations * UNROLL


def chain_ghz(chain: str, seconds: float, iterations: int) -> float | None:
    """GHz from one call of ``chain`` (``imul`` or ``add_xor``) over ``iterations`` that took
    ``seconds``: cycles per step × steps / time (None where its latency is not tabulated)."""
    cycles = CYCLES.get(architecture(), {}).get(chain)
    return cycles * iterations * UNROLL / seconds / 1e9 if cycles else None
