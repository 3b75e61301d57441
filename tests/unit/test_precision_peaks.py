"""The lower precisions: AVX-512 BF16/FP16/VNNI and AMX peaks, measured beside what they
should do (``machine.precision``), and the probe's kernels as written."""

from __future__ import annotations

import importlib.util
import platform
from pathlib import Path

import pytest

from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.machine.limits import machine_limits
from overhead_tui.machine.precision import expected_per_cycle, precision_peaks
from overhead_tui.present.format import precision_rows
from overhead_tui.summary.probes import probe_records
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
XEON = ROOT / "tests" / "fixtures" / "cpus" / "xeon-avx512-amx-licence" / "cpuinfo.txt"


def _probe():
    spec = importlib.util.spec_from_file_location(
        "precision_peak", ROOT / "probes" / "precision_peak.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# measured on the Xeon vCPU of 2026-12-02 (overhead-tui machine, the precision_peak probe)
DETAILS = {
    "families": "avx512_bf16,avx512_fp16,avx512_vnni,amx_bf16,amx_int8",
    "avx512_bf16_one_core": 103.0,
    "avx512_fp16_one_core": 405.0,
    "avx512_vnni_one_core": 730.0,
    "amx_bf16_one_core": 3066.0,
    "amx_bf16_all_cores": 5815.0,
    "amx_int8_one_core": 6030.0,
    "amx_bf16_per_scalar_cycle": 900.0,
}


def test_each_family_beside_what_it_should_do_at_the_loaded_clock():
    cpu = parse_cpuinfo(XEON.read_text())
    probes = probe_records(
        {
            "precision_peak": {"value": 3066.0, "details": DETAILS},
            "simd_fma": {"value": 190.0, "details": {"vector_clock_ghz": 3.15}},
        }
    )
    peaks = {p.family: p for p in precision_peaks(cpu, probes)}
    assert list(peaks) == DETAILS["families"].split(",")
    amx = peaks["amx_bf16"]
    assert amx.expected_per_cycle == 1024 and "16×16×32" in amx.expected_source
    assert amx.per_cycle == pytest.approx(3066 / 3.15)  # the loaded clock, not the probe's
    assert amx.ratio == pytest.approx(3066 / 3.15 / 1024)
    assert peaks["amx_int8"].unit == "OP" and peaks["amx_int8"].expected_per_cycle == 2048
    assert peaks["avx512_fp16"].expected_per_cycle == 128  # 2 units × 32 lanes × 2
    assert peaks["avx512_vnni"].expected_per_cycle == 256  # 2 units × 16 lanes × 8
    limits = machine_limits(cpu, probes)
    low = [w for w in limits.limit_warnings if w.startswith("avx512_bf16 did")]
    assert len(low) == 1 and "0.26 of the 128 expected" in low[0]
    from overhead_tui.summary.records import RunSummary, Settings

    # under a float64 ladder the lower precisions' doubt is not repeated; a bf16 run keeps it
    float64 = machine_limits(cpu, probes, RunSummary(settings=Settings(dtype="float64")))
    assert not [w for w in float64.limit_warnings if w.startswith("avx512_bf16 did")]
    bf16 = machine_limits(cpu, probes, RunSummary(settings=Settings(dtype="bfloat16")))
    assert [w for w in bf16.limit_warnings if w.startswith("avx512_bf16 did")] == low
    rows = precision_rows(limits.precision_peaks)
    assert rows[3][:3] == ("amx_bf16", "3,066 GFLOP/s", "5,815 GFLOP/s")
    assert rows[4][1].endswith("GOP/s")


def test_without_the_probe_or_the_families_there_are_no_rows():
    zen3 = parse_cpuinfo((FIXTURES / "cpuinfo" / "zen3-epyc-constructed.txt").read_text())
    assert precision_peaks(zen3, probe_records({})) == []
    assert expected_per_cycle(None, "avx512_bf16")[0] is None
    probe = _probe()
    assert probe.families_present({"avx2", "fma"}) == []
    assert probe.families_present({"amx_tile", "amx_bf16", "avx512_fp16"}) == [
        "avx512_fp16",
        "amx_bf16",
    ]


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
def test_the_kernels_are_built_as_written_on_any_x86_host():
    """cc -S of the probe (compiled, not run): 12 vdpbf16ps, vfmadd…ph and vpdpbusd on zmm
    registers, and the four tile products, whatever CPU builds it."""
    from overhead_tui.kit.cbuild import Unavailable, assembly

    probe = _probe()
    try:
        code = assembly(probe.SOURCE, probe.FLAGS)
    except Unavailable as exc:  # a compiler too old for AVX-512 FP16 or AMX intrinsics
        pytest.skip(str(exc))
    words = [line.split()[0] for line in code.splitlines() if line.split()]
    assert words.count("vdpbf16ps") == 12 and words.count("vpdpbusd") == 12
    assert sum(1 for w in words if w.startswith("vfmadd") and w.endswith("ph")) == 12
    assert words.count("tdpbf16ps") == 4 and words.count("tdpbssd") == 4


def test_published_claims_per_core_and_cycle_come_from_the_reference_file():
    """The question this tool was made for quotes "1024 FP16 FLOP/cycle/core": the Machines
    screen puts it beside what this machine's cores measure."""
    from overhead_tui.machine.reference import load_shipped
    from overhead_tui.present.format import per_core_claims

    claims = per_core_claims(load_shipped())
    assert (
        "Intel Xeon 6980P: FP16 AMX 1,023 FLOP/cycle/core (419,000 GFLOP/s ÷ 128 cores ÷ 3.2 GHz)"
        in claims
    )
    assert any(c.startswith("AMD EPYC 9965: FP32 64.1 FLOP/cycle/core") for c in claims)
