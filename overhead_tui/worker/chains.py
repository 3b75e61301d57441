"""Dependent instruction chains in C: the clock in cycles, and the latency of scalar code.

One small C library (built with :mod:`overhead_tui.worker.cbuild`, cached) used by the
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

Which instructions were built is checked in the assembly (:func:`chain_instructions`).
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

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
"""
CDEF = """
uint64_t imul_chain(uint64_t iterations, uint64_t x, uint64_t m);
uint64_t add_xor_chain(uint64_t iterations, uint64_t x, uint64_t m, uint64_t a);
double fp_chain(uint64_t iterations, double x, double y);
"""
IMUL_ARGS = (3, 0x9E3779B97F4A7C15)
"""(start, multiplier) of the imul chain: an odd multiplier keeps x from reaching 0."""
ADD_XOR_ARGS = (3, 0x5555, 0x1234567)
"""(start, xor mask, addend) of the add/xor chain."""


def architecture() -> str:
    """``x86_64`` or ``aarch64`` (``platform.machine()`` normalised); others as they are."""
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def chain_library() -> Any:
    """The built chains (cffi ``lib``: ``imul_chain``, ``add_xor_chain``, ``fp_chain``).

    Raises:
        Unavailable: no compiler, or an architecture without chains.
    """
    from overhead_tui.worker.cbuild import Unavailable, build

    if architecture() not in CYCLES:
        raise Unavailable(f"no clock chains for {architecture()} (x86-64 and aarch64 only)")
    _, lib, _ = build("chains", SOURCE, FLAGS, "float64", cdef=CDEF)
    return lib


def chain_instructions() -> dict[str, int]:
    """How many times each chain's instruction appears in the generated code (``cc -S``):
    :data:`UNROLL` each when the chains were built as written."""
    from overhead_tui.worker.cbuild import assembly

    lines = [line.split() for line in assembly(SOURCE, FLAGS).splitlines()]
    mnemonics = MNEMONICS.get(architecture(), {})
    return {chain: sum(1 for w in lines if w[:1] == [m]) for chain, m in mnemonics.items()}


def chain_call(lib: Any, chain: str, iterations: int) -> Callable[[], int]:
    """A call of one chain (``imul`` or ``add_xor``) over ``iterations``, with the start
    values of :data:`IMUL_ARGS` / :data:`ADD_XOR_ARGS`, to time (then :func:`chain_ghz`)."""
    run, args = {
        "imul": (lib.imul_chain, IMUL_ARGS),
        "add_xor": (lib.add_xor_chain, ADD_XOR_ARGS),
    }[chain]
    return lambda: run(iterations, *args)


def chain_ghz(chain: str, seconds: float, iterations: int) -> float | None:
    """GHz from one call of ``chain`` (``imul`` or ``add_xor``) over ``iterations`` that took
    ``seconds``: cycles per step × steps / time (None where its latency is not tabulated)."""
    cycles = CYCLES.get(architecture(), {}).get(chain)
    return cycles * iterations * UNROLL / seconds / 1e9 if cycles else None
