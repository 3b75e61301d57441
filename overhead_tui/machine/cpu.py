"""The CPU model: what the processor is, its SIMD and FMA resources, and its theoretical peak.

Theoretical peak per dtype = cores × FLOP/cycle/core × GHz, with FLOP/cycle/core = FMA units ×
lanes (SIMD bits / bits per element) × 2 (a fused multiply-add is two flops).  FMA units per
core come from ``MICROARCHITECTURES`` (each row cites its source); an unlisted CPU follows the
fallback rule in :func:`lookup`.  The clock is the nominal one from the model name or
``cpu MHz`` and, when measured, the one the cores actually ran at (``probes/clock.py``):
virtual machines often report only the nominal clock while running faster.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE


@dataclass(frozen=True)
class Microarchitecture:
    """FMA resources of one core family."""

    name: str
    fma_units: int
    """FMA pipes per core."""
    fma_width_bits: int
    """Width of each FMA pipe (bits)."""
    source: str


MICROARCHITECTURES: list[tuple[str, Microarchitecture]] = [
    # key: "x86:<vendor>:<family>:<model range>" or "arm:<implementer>:<part>"
    (
        "x86:AuthenticAMD:0x17:0x30-0x3f,0x60-0x7f,0x90-0x9f",
        Microarchitecture(
            "Zen 2", 2, 256, "AMD Software Optimization Guide for Family 17h (56305), §2.11"
        ),
    ),
    (
        "x86:AuthenticAMD:0x19:0x00-0x0f,0x20-0x5f",
        Microarchitecture(
            "Zen 3", 2, 256, "AMD Software Optimization Guide for Family 19h (56665), §2.11"
        ),
    ),
    (
        "x86:AuthenticAMD:0x19:0x10-0x1f,0x60-0x7f,0xa0-0xaf",
        Microarchitecture(
            "Zen 4",
            2,
            256,
            "AMD Software Optimization Guide for Family 19h (57647): AVX-512 "
            "executes on two 256-bit FMA pipes",
        ),
    ),
    (
        "x86:AuthenticAMD:0x1a:0x00-0xff",
        Microarchitecture(
            "Zen 5",
            2,
            512,
            "AMD Software Optimization Guide for Family 1Ah (58455): full "
            "512-bit data path (server and desktop parts)",
        ),
    ),
    (
        "x86:GenuineIntel:0x6:0x55",
        Microarchitecture(
            "Skylake-SP / Cascade Lake",
            2,
            512,
            "Intel 64 and IA-32 Optimization Reference "
            "Manual, §2.2: two 512-bit FMA units on Gold 6xxx / Platinum (one on some SKUs)",
        ),
    ),
    (
        "x86:GenuineIntel:0x6:0x6a,0x6c",
        Microarchitecture(
            "Ice Lake-SP", 2, 512, "Intel Optimization Reference Manual, Ice Lake server"
        ),
    ),
    (
        "x86:GenuineIntel:0x6:0x8f,0xcf",
        Microarchitecture(
            "Sapphire / Emerald Rapids",
            2,
            512,
            "Intel Optimization Reference Manual, Golden "
            "Cove server (plus AMX tiles for bf16/int8)",
        ),
    ),
    (
        "x86:GenuineIntel:0x6:0x3f,0x4f,0x56",
        Microarchitecture(
            "Haswell / Broadwell server", 2, 256, "Intel Optimization Reference Manual, §2.5"
        ),
    ),
    (
        "arm:0x41:0xd0c",
        Microarchitecture(
            "Neoverse N1",
            2,
            128,
            "Arm Neoverse N1 Software Optimization Guide: two 128-bit ASIMD FMA pipes",
        ),
    ),
    (
        "arm:0x41:0xd40",
        Microarchitecture(
            "Neoverse V1",
            4,
            128,
            "Arm Neoverse V1 Software Optimization Guide: four 128-bit (two 256-bit SVE) FMA pipes",
        ),
    ),
    (
        "arm:0x41:0xd4f",
        Microarchitecture("Neoverse V2", 4, 128, "Arm Neoverse V2 Software Optimization Guide"),
    ),
    (
        "arm:0x61:*",
        Microarchitecture(
            "Apple M-series (P-core)",
            4,
            128,
            "Apple silicon CPU Optimization Guide: four "
            "128-bit NEON FMA pipes per performance core",
        ),
    ),
]
"""Micro-architecture rows, first match wins."""

AMX_PER_CYCLE = {"bfloat16": ("amx_bf16", 1024), "int8": ("amx_int8", 2048)}
"""(flag, operations per cycle per core) of AMX per dtype: Intel 64 and IA-32 Architectures
Optimization Reference Manual, Intel AMX chapter (one TDPBF16PS, 16 × 16 × 32 multiply-adds,
or TDPBSSD, 16 × 16 × 64, per 16 cycles; Sapphire Rapids and later)."""

ISA_FLAGS = (
    "sse2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512_bf16",
    "avx512_fp16",
    "avx512_vnni",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "asimd",
    "sve",
)
"""Instruction-set flags reported (x86 ``flags`` or ARM ``Features``)."""


@dataclass
class CpuModel:
    """What /proc/cpuinfo says, and what follows from it."""

    vendor: str = "unknown"
    model_name: str = "unknown"
    family: int | None = None
    model: int | None = None
    logical_cpus: int = 0
    physical_cores: int = 0
    isa: list[str] = field(default_factory=list)
    simd_width_bits: int = 128
    microarchitecture: str = "unknown"
    fma_units: int = 1
    fma_width_bits: int = 128
    source: str = ""
    nominal_ghz: float | None = None

    def flop_per_cycle(self, dtype: str) -> int:
        """FLOP (OP for int8) per cycle per core for ``dtype``: FMA units × lanes of the dtype's
        width × 2 (the FMA-unit rule; for float16, bfloat16 and int8 the rule of AVX-512 FP16,
        ``vdpbf16ps`` and VNNI ``vpdpbusd``, ``machine.precision``), or AMX's rate where the
        CPU has AMX for the dtype (1024 bf16 FLOP, 2048 int8 OP: :data:`AMX_PER_CYCLE`)."""
        lanes = self.fma_width_bits // (8 * DTYPE_ITEMSIZE[dtype])
        per = self.fma_units * lanes * 2
        amx = AMX_PER_CYCLE.get(dtype)
        if amx is not None and amx[0] in self.isa:
            per = max(per, amx[1])
        return per

    def peak(
        self, dtype: str, ghz: float | None, cores: float | None = None
    ) -> tuple[float | None, str]:
        """(theoretical GFLOP/s, the formula as text) at ``ghz`` on ``cores`` (default: all)."""
        cores = cores or self.physical_cores or self.logical_cpus or 1
        per = self.flop_per_cycle(dtype)
        counted = f"{cores} core{'' if cores == 1 else 's'}"
        if ghz is None:
            return None, f"{counted} × {per} FLOP/cycle/core × ? GHz"
        value = cores * per * ghz
        return (
            value,
            f"{counted} × {per} FLOP/cycle/core × {ghz:.2f} GHz = {value:,.1f} GFLOP/s",
        )


def _in_ranges(value: int, spec: str) -> bool:
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        if int(lo, 16) <= value <= int(hi or lo, 16):
            return True
    return False


def lookup(
    vendor: str,
    family: int | None,
    model: int | None,
    arm_part: str | None,
    simd_width_bits: int,
    isa: list[str],
) -> tuple[Microarchitecture, bool]:
    """The micro-architecture row for a CPU, and whether it came from the table.

    Fallback rule for unlisted CPUs: x86 with FMA → 2 FMA units of the widest SIMD width it
    reports (AVX-512 → 512, AVX2 → 256); x86 without FMA → 1 unit (separate multiply and add
    ports give the same 2 flops per lane per cycle); ARM → 2 units of 128 bits.
    """
    for key, arch in MICROARCHITECTURES:
        kind, *rest = key.split(":")
        if kind == "x86" and family is not None and model is not None:
            k_vendor, k_family, k_models = rest
            if vendor == k_vendor and family == int(k_family, 16) and _in_ranges(model, k_models):
                return arch, True
        if kind == "arm" and arm_part is not None:
            implementer, part = rest
            ours = arm_part.split(":")
            if ours[0] == implementer and part in ("*", ours[1]):
                return arch, True
    if arm_part is not None:
        return Microarchitecture("unknown ARM", 2, 128, "fallback rule (2 × 128-bit FMA)"), False
    units = 2 if "fma" in isa else 1
    return Microarchitecture(
        f"unknown {vendor}",
        units,
        simd_width_bits,
        f"fallback rule ({units} × {simd_width_bits}-bit FMA)",
    ), False


def parse_cpuinfo(text: str) -> CpuModel:
    """Build a :class:`CpuModel` from the text of /proc/cpuinfo (x86 or ARM)."""
    blocks = [b for b in text.strip().split("\n\n") if b.strip()]
    fields: list[dict[str, str]] = []
    for block in blocks:
        entry = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                entry[key.strip()] = value.strip()
        fields.append(entry)
    first = next((f for f in fields if "processor" in f), fields[0] if fields else {})
    logical = sum(1 for f in fields if "processor" in f and f.get("processor", "").isdigit())
    cores: set[object] = {
        (f.get("physical id"), f.get("core id")) for f in fields if "core id" in f
    } or set(range(logical))
    flags = (first.get("flags") or first.get("Features") or "").split()
    isa = [f for f in ISA_FLAGS if f in flags]
    width = 512 if "avx512f" in flags else 256 if "avx" in flags else 128
    family = _int(first.get("cpu family"))
    model = _int(first.get("model"))
    arm_part = None
    if "CPU implementer" in first:
        arm_part = f"{first['CPU implementer'].lower()}:{first.get('CPU part', '').lower()}"
    vendor = first.get("vendor_id") or ("ARM" if arm_part else "unknown")
    arch, _ = lookup(vendor, family, model, arm_part, width, isa)
    name = first.get("model name") or first.get("Hardware") or arch.name
    return CpuModel(
        vendor=vendor,
        model_name=name,
        family=family,
        model=model,
        logical_cpus=logical,
        physical_cores=len(cores),
        isa=isa,
        simd_width_bits=width,
        microarchitecture=arch.name,
        fma_units=arch.fma_units,
        fma_width_bits=min(arch.fma_width_bits, width) if width else arch.fma_width_bits,
        source=arch.source,
        nominal_ghz=_nominal_ghz(name, first.get("cpu MHz")),
    )


def _int(text: str | None) -> int | None:
    try:
        return int(text, 0) if text is not None else None
    except ValueError:
        return None


def _nominal_ghz(model_name: str, mhz: str | None) -> float | None:
    match = re.search(r"@\s*([0-9.]+)\s*GHz", model_name)
    if match:
        return float(match.group(1))
    try:
        return float(mhz) / 1000 if mhz else None
    except ValueError:
        return None


def read_cpu_model(path: Path = Path("/proc/cpuinfo")) -> CpuModel | None:
    """This machine's CPU model, or None where /proc/cpuinfo does not exist."""
    try:
        return parse_cpuinfo(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
