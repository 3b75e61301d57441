"""The clock the cores actually run at (GHz), from two dependent chains no renamer can fold.

Two methods on different execution units, each a chain of instructions that wait for the
previous one, written in inline assembly so that no compiler can change them (C built with
``engine.cbuild``; the assembly is checked for the instructions):

* ``imul``: ``x = x * m`` with both in registers (x86 ``imul r64, r64``; ARM ``mul x, x, x``).
  Latency 3 cycles on every x86 core since Nehalem (Agner Fog, *Instruction tables*, 2022:
  IMUL r64,r64 latency 3 on Nehalem … Golden Cove, Zen 1–5; Intel Optimization Reference
  Manual, appendix D; AMD Software Optimization Guides 56305/56665/57647/58455, latency
  tables).  On ARM the latency is not tabulated here: the chain is reported but not used.
* ``add_xor``: ``x = (x + a) ^ m``, an add and an xor of registers (never of an immediate:
  Golden Cove folds ``add $1`` at rename, so the old ``(x + 1) ^ m`` chain ran 1.5–2× too
  fast there), 1 cycle of latency each: 2 cycles per step on every x86 and ARM core
  (Agner Fog, ADD/XOR r,r latency 1).

GHz = cycles per step × steps / time.  The two chains are timed interleaved, so a change of
speed hits both.  Verdict (``details["verdict"]``): they agree within
:data:`AGREE_WITHIN` → the value is the ``imul`` figure; otherwise the *lower* one (a chain
can only run faster than its documented latency when the core folds or fuses it, and being
disturbed slows both alike), and ``clock_warning`` says which was used and why.
Virtual machines often report only the nominal clock while the cores run faster (turbo).
"""

import platform
import statistics

from overhead_tui.api import Unavailable, assembly, build

NAME = "clock"
TITLE = "measured core clock (imul and add/xor chains)"
UNIT = "GHz"
LAYER = "scalar_compute"
REQUIRES = ("cffi",)
STEPS = 2_000_000
"""Loop iterations per call; each iteration is :data:`UNROLL` chain steps."""
UNROLL = 8
AGREE_WITHIN = 0.05
"""The two chains' figures may differ by 5 % (relative to the lower) and still agree."""
CYCLES = {
    "x86_64": {"imul": 3, "add_xor": 2},
    "aarch64": {"imul": None, "add_xor": 2},
}
"""Cycles per chain step per architecture (sources in the module docstring); None: not
tabulated (the chain is timed, reported as steps per ns, and not used for the clock)."""
FLAGS = ["-O2"]
SOURCE = r"""
#include <stdint.h>
#if defined(__x86_64__)
#define MUL "imul %1, %0\n\t"
#define ADD_XOR "add %2, %0\n\txor %1, %0\n\t"
#elif defined(__aarch64__)
#define MUL "mul %0, %0, %1\n\t"
#define ADD_XOR "add %0, %0, %2\n\teor %0, %0, %1\n\t"
#else
#error "the clock probe has chains for x86-64 and aarch64 only"
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
"""
CDEF = """
uint64_t imul_chain(uint64_t iterations, uint64_t x, uint64_t m);
uint64_t add_xor_chain(uint64_t iterations, uint64_t x, uint64_t m, uint64_t a);
"""
MNEMONICS = {"x86_64": ("imul", "add"), "aarch64": ("mul", "eor")}


def chain_instructions(asm, mnemonic):
    """How many ``mnemonic`` instructions the generated code holds (8 per chain expected)."""
    return sum(1 for line in asm.splitlines() if line.split()[:1] == [mnemonic])


def verdict(imul_ghz, add_xor_ghz, agree_within=AGREE_WITHIN):
    """(GHz used, verdict, warning or None) from the two chains' figures (either may be None).

    Agreement: the ``imul`` figure.  Disagreement: the lower one, and a warning naming both.
    """
    if imul_ghz is None or add_xor_ghz is None:
        only = imul_ghz or add_xor_ghz
        which = "imul" if imul_ghz else "add_xor"
        return (
            only,
            f"{which} chain only",
            (
                f"the clock comes from the {which} chain alone (the other chain's latency is not "
                "tabulated for this CPU): no second method checked it"
            ),
        )
    gap = max(imul_ghz, add_xor_ghz) / min(imul_ghz, add_xor_ghz) - 1
    if gap <= agree_within:
        return imul_ghz, f"agree within {gap:.1%}", None
    lower = min(imul_ghz, add_xor_ghz)
    used = "imul" if lower == imul_ghz else "add_xor"
    return (
        lower,
        f"disagree by {gap:.0%}",
        (
            f"the two clock chains disagree by {gap:.0%} (imul {imul_ghz:.2f} GHz, add/xor "
            f"{add_xor_ghz:.2f} GHz): used the lower, {used} {lower:.2f} GHz (a chain reads fast "
            "only when the core folds its instructions); re-measure with `overhead-tui probes "
            "--refresh` on a quiet machine"
        ),
    )


def measure(ctx):
    arch = platform.machine().lower()
    if arch not in CYCLES:
        raise Unavailable(f"no clock chains for {arch} (x86-64 and aarch64 only)")
    _, lib, _ = build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    asm = assembly(SOURCE, FLAGS)
    counts = {m: chain_instructions(asm, m) for m in MNEMONICS[arch]}
    lib.imul_chain(1000, 3, 0x9E3779B97F4A7C15)
    lib.add_xor_chain(1000, 3, 0x5555, 0x1234567)
    pairs = ctx.time_pair(
        lambda: lib.imul_chain(STEPS, 3, 0x9E3779B97F4A7C15),
        lambda: lib.add_xor_chain(STEPS, 3, 0x5555, 0x1234567),
    )
    steps = STEPS * UNROLL
    rates = {
        "imul": [steps / a / 1e9 for a, _ in pairs],
        "add_xor": [steps / b / 1e9 for _, b in pairs],
    }
    ghz = {
        chain: [cycles * r for r in rates[chain]] if cycles else None
        for chain, cycles in CYCLES[arch].items()
    }
    medians = {chain: statistics.median(v) if v else None for chain, v in ghz.items()}
    value, said, warning = verdict(medians["imul"], medians["add_xor"])
    samples = ghz["imul"] if value == medians["imul"] else ghz["add_xor"]
    details = {
        "value": value,
        "imul_ghz": medians["imul"],
        "add_xor_ghz": medians["add_xor"],
        "imul_steps_per_ns": statistics.median(rates["imul"]),
        "imul_cycles_per_step": CYCLES[arch]["imul"],
        "add_xor_cycles_per_step": CYCLES[arch]["add_xor"],
        "verdict": said,
        "chain_instructions": counts,
    }
    if warning:
        details["clock_warning"] = warning
    if min(counts.values()) < UNROLL:
        details["clock_warning"] = (
            f"the generated code holds {counts} chain instructions, fewer than {UNROLL} each: "
            "the chains were not built as written"
        )
    return {"samples": samples, "details": {k: v for k, v in details.items() if v is not None}}
