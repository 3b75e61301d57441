"""The lower precisions' peaks: what the ``precision_peak`` probe measured per instruction
family beside what the family should do per cycle on one core.

Expected operations per cycle and core, per family:

* ``amx_bf16``: 1024 FLOP — Intel 64 and IA-32 Architectures Optimization Reference Manual,
  chapter "Intel AMX": one TDPBF16PS (16 × 16 × 32 bf16 multiply-adds, 16,384 FLOP) per 16
  cycles per core on Sapphire Rapids and its successors.
* ``amx_int8``: 2048 OP — the same chapter: one TDPBSSD (16 × 16 × 64 int8 multiply-adds)
  per 16 cycles.
* ``avx512_fp16``, ``avx512_bf16``, ``avx512_vnni``: the FMA-unit rule, as for float64 and
  float32 (``cpu.MICROARCHITECTURES``): FMA units × lanes of the unit's width × operations per
  lane (fp16: 16-bit lanes × 2; bf16 ``vdpbf16ps``: 32-bit lanes × 2 products × 2; VNNI
  ``vpdpbusd``: 32-bit lanes × 4 products × 2).  A rule, not a vendor figure: a family whose
  instruction issues at a lower rate than an FMA shows as a low ratio (the Xeon vCPU of
  2026-12-02 ran ``vdpbf16ps`` at 29 FLOP per cycle where the rule says 128).

The per-cycle figure divides by the clock under 512-bit FMA load (``simd_fma``'s
``vector_clock_ghz``) where it was measured, else by the probe's own scalar clock.
"""

from __future__ import annotations

from overhead_tui.machine.cpu import CpuModel
from overhead_tui.summary.limits import PrecisionPeak
from overhead_tui.summary.probes import Probes, probe_detail, probe_value
from overhead_tui.summary.units import fmt_number

MANUAL = "Intel 64 and IA-32 Architectures Optimization Reference Manual, Intel AMX chapter"
"""The source of :data:`AMX_PER_CYCLE` (its short form in the rows: "Intel AMX manual")."""
AMX_PER_CYCLE = {"amx_bf16": (1024.0, "Intel AMX manual: 16×16×32 / 16 cycles"),
                 "amx_int8": (2048.0, "Intel AMX manual: 16×16×64 / 16 cycles")}  # fmt: skip
"""Expected operations per cycle per core of the AMX families, with their source."""
LANE_BITS_AND_OPS = {"avx512_fp16": (16, 2), "avx512_bf16": (32, 4), "avx512_vnni": (32, 8)}
"""(lane width in bits, operations per lane and instruction) of the vector families."""
UNITS = {"avx512_bf16": "FLOP", "avx512_fp16": "FLOP", "avx512_vnni": "OP",
         "amx_bf16": "FLOP", "amx_int8": "OP"}  # fmt: skip
"""FLOP, or OP for the int8 families (each multiply and each add)."""


def expected_per_cycle(cpu: CpuModel | None, family: str) -> tuple[float | None, str]:
    """(operations per cycle per core ``family`` should do, its source), or (None, why)."""
    if family in AMX_PER_CYCLE:
        return AMX_PER_CYCLE[family]
    if cpu is None or family not in LANE_BITS_AND_OPS:
        return None, "no CPU model: not tabulated"
    bits, ops = LANE_BITS_AND_OPS[family]
    per = cpu.fma_units * (cpu.fma_width_bits // bits) * ops
    return float(per), f"FMA-unit rule, {cpu.fma_units} × {cpu.fma_width_bits} bits"


def precision_peaks(cpu: CpuModel | None, probes: Probes) -> list[PrecisionPeak]:
    """One record per family the ``precision_peak`` probe measured (none without it)."""
    families = str(probe_detail(probes, "precision_peak", "families") or "")
    vector = probe_value(probes, "simd_fma", "vector_clock_ghz")
    peaks = []
    for family in filter(None, families.split(",")):
        one = probe_value(probes, "precision_peak", f"{family}_one_core")
        if one is not None and vector is not None:
            per_cycle: float | None = one / vector
        else:
            per_cycle = probe_value(probes, "precision_peak", f"{family}_per_scalar_cycle")
        expected, source = expected_per_cycle(cpu, family)
        peaks.append(
            PrecisionPeak(
                family,
                UNITS.get(family, "FLOP"),
                one,
                probe_value(probes, "precision_peak", f"{family}_all_cores"),
                per_cycle,
                expected,
                source,
                per_cycle / expected if per_cycle and expected else None,
            )
        )
    return peaks


LOW_RATIO = 0.5
"""A family measured below half of what it should do per cycle is warned about."""


def precision_warnings(peaks: list[PrecisionPeak]) -> list[str]:
    """One line per family far below its expectation (the instruction issues slower than the
    rule assumes, or the rule is wrong for this core; AMX: the tiles were disturbed)."""
    return [
        f"{p.family} did {fmt_number(p.per_cycle)} {p.unit} per cycle and core, {p.ratio:.2f} of "
        f"the {fmt_number(p.expected_per_cycle)} expected ({p.expected_source}): its "
        "instruction issues at a lower rate than that on this core, or the expectation does "
        "not hold for it"
        for p in peaks
        if p.ratio is not None and p.ratio < LOW_RATIO
    ]
