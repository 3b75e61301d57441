"""The precision axis: inputs and validation bounds per dtype on fixed inputs, which rungs run
or are skipped on each CPU of the corpus, the peaks' theory per dtype, OP/s units, and that
the lower-precision C rungs build on any x86 machine with gcc ≥ 12."""

from __future__ import annotations

import importlib.util
import json
import platform
import shutil
from pathlib import Path

import numpy as np
import pytest

from overhead_tui.kit.low_precision import bfloat16_bits
from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary.vocabulary import rate_unit
from overhead_tui.worker.inputs import dtype_name, make_inputs, to_bfloat16
from overhead_tui.worker.validate import validate

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "cpus"
MACHINES = sorted(p.name for p in CORPUS.iterdir() if (p / "cpuinfo.txt").exists())
LOW = ("bfloat16", "float16", "int8")


def _rung(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scenarios" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bfloat16_rounds_to_nearest_even_and_names_itself():
    x = np.array([1.0, 1.00390625, 1.01171875, -2.5e-3], dtype=np.float32)
    rounded = to_bfloat16(x)
    # 1 + 2^-8 is a tie: to even (1.0); 1 + 3·2^-8 is a tie: to even (1 + 2^-6)
    assert list(rounded[:3]) == [1.0, 1.0, 1.015625]
    assert (rounded.view(np.uint32) & 0xFFFF).max() == 0
    assert list(bfloat16_bits(rounded[:1])) == [0x3F80]
    assert dtype_name(rounded) == "bfloat16" and dtype_name(x) == "float32"


@pytest.mark.parametrize("dtype", LOW)
def test_each_dtypes_inputs_and_a_correct_product_passes(dtype):
    a, b = make_inputs(32, dtype, 0)
    assert dtype_name(a) == dtype and a.shape == (32, 32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert validate(exact, a, b, dtype).ok


def test_the_bounds_per_dtype_on_fixed_inputs():
    a = np.full((4, 64), 0.5)
    b = np.full((64, 4), 0.5)
    # |A||B| = 16 per element; γ_66 with binary16's u = 2^-11 is about 0.0333: 0.53
    f16 = validate(
        np.full((4, 4), 16.0 + 0.5), a.astype(np.float16), b.astype(np.float16), "float16"
    )
    assert f16.ok and f16.tolerance == pytest.approx(16 * 66 * 2**-11 / (1 - 66 * 2**-11))
    assert not validate(
        np.full((4, 4), 17.0), a.astype(np.float16), b.astype(np.float16), "float16"
    ).ok
    # bfloat16 is accumulated in binary32: the bound is binary32's
    bf = validate(np.full((4, 4), 16.001), to_bfloat16(a), to_bfloat16(b), "bfloat16")
    assert not bf.ok and bf.tolerance == pytest.approx(16 * 66 * 2**-24, rel=1e-3)
    ints = np.ones((4, 64), dtype=np.int8)
    assert validate(np.full((4, 4), 64), ints, ints.T.copy(), "int8").ok
    off = validate(np.full((4, 4), 65), ints, ints.T.copy(), "int8")
    assert not off.ok and "exact" in off.reason


def test_ops_are_the_unit_of_int8_everywhere_a_speed_is_said():
    from overhead_tui.present.ladder_rows import ladder_headers

    assert rate_unit("int8") == "GOP/s" and rate_unit("bfloat16") == "GFLOP/s"
    assert "GOP/s" in ladder_headers("int8") and "GFLOP/s" not in ladder_headers("int8")


def _flags(name):
    return set(parse_cpuinfo((CORPUS / name / "cpuinfo.txt").read_text()).isa)


@pytest.mark.parametrize("name", MACHINES)
def test_each_corpus_cpu_runs_the_rungs_it_has_instructions_for_and_skips_the_rest(
    name, monkeypatch
):
    from overhead_tui.api import Unavailable

    flags = _flags(name)
    for rung_name in ("c_avx512_dot", "c_amx_tiles"):
        rung = _rung(rung_name)
        monkeypatch.setattr(rung, "cpu_flags", lambda flags=flags: flags)
        monkeypatch.setattr(rung, "prepare_low_precision", lambda *a, **k: "built")
        for dtype in rung.DTYPES:
            a, b = make_inputs(8, dtype, 0)
            needs = rung.NEEDS[dtype]
            needs = (needs,) if isinstance(needs, str) else needs
            if set(needs) <= flags:
                if rung_name == "c_amx_tiles":
                    continue  # setup asks Linux for the tile state: covered on AMX hosts
                assert rung.setup(a, b) == "built"
            else:
                with pytest.raises(Unavailable, match="this CPU has no"):
                    rung.setup(a, b)


@pytest.mark.parametrize("name", MACHINES)
def test_the_theory_per_dtype_on_each_corpus_cpu(name):
    cpu = parse_cpuinfo((CORPUS / name / "cpuinfo.txt").read_text())
    f32 = cpu.flop_per_cycle("float32")
    assert cpu.flop_per_cycle("float16") == 2 * f32
    amx = "amx_bf16" in cpu.isa
    assert cpu.flop_per_cycle("bfloat16") == (1024 if amx else 2 * f32)
    assert cpu.flop_per_cycle("int8") == (2048 if "amx_int8" in cpu.isa else 4 * f32)
    record = json.loads((CORPUS / name / "machine.json").read_text())
    if name.startswith(("emr", "xeon")):
        assert amx and record["expect"]["microarchitecture"]


def test_a_lower_precision_run_skips_the_float_rungs_with_one_line():
    from overhead_tui.engine.plan import planned_summary
    from overhead_tui.present.tables import render_table
    from overhead_tui.summary.records import Settings

    summary = planned_summary(discover(), Settings(dtype="int8"))
    for r in summary.scenarios:
        r.status = "skipped"
        r.error = f"does not support int8 (supports {', '.join(['float64'])})"
    text = render_table(summary)
    assert "GOP/s" in text and f"{len(summary.scenarios)} rungs skipped" in text


X86_GCC12 = platform.machine() in ("x86_64", "AMD64") and shutil.which("gcc")


@pytest.mark.skipif(not X86_GCC12, reason="x86 with gcc")
@pytest.mark.parametrize("rung_name", ["c_avx512_dot", "c_amx_tiles"])
def test_the_lower_precision_sources_compile_on_any_x86_machine(rung_name):
    from overhead_tui.kit.cbuild import BuildError, assembly

    rung = _rung(rung_name)
    try:
        asm = assembly(rung.SOURCE, rung.FLAGS)
    except BuildError as exc:
        words = ("unrecognized", "unknown", "target specific option", "not supported")
        if any(w in str(exc) for w in words):  # gcc < 12 has no avx512fp16, < 11 no AMX
            pytest.skip(f"this gcc is older than the intrinsics need: {str(exc)[:200]}")
        raise
    wanted = {"c_avx512_dot": ("vdpbf16ps", "vfmadd231ph", "vpdpbusd"),
              "c_amx_tiles": ("tdpbf16ps", "tdpbssd", "tileloadd")}[rung_name]  # fmt: skip
    assert all(w in asm for w in wanted)


def test_each_precision_family_has_a_roof_that_bounds_only_its_own_dtype():
    from overhead_tui.analysis.roofline import ceilings, roofline
    from overhead_tui.summary.limits import PeakEntry, PrecisionPeak
    from overhead_tui.summary.records import RunSummary, Settings

    def summary(dtype):
        s = RunSummary(settings=Settings(dtype=dtype))
        s.machine.peak_gflops = {dtype: PeakEntry(measured=100.0)}
        s.machine.bandwidth_gbs = {"all_cores": 10.0}
        s.machine.precision_peaks = [PrecisionPeak("amx_bf16", "FLOP", 3000.0, 6000.0)]
        return s

    roofs = {c.label: c for c in ceilings(summary("float64"))}
    amx = roofs["AMX BF16 all cores (bfloat16)"]
    assert amx.dtype == "bfloat16" and not amx.bounds_the_run
    assert roofline(summary("float64")).peak == 100.0
    own = {c.label: c for c in ceilings(summary("bfloat16"))}
    assert own["AMX BF16 all cores"].bounds_the_run
    assert roofline(summary("bfloat16")).peak == 6000.0


@pytest.mark.skipif(not X86_GCC12, reason="x86 with gcc")
@pytest.mark.parametrize(
    ("dtype", "family"), [("bfloat16", "avx512_bf16"), ("int8", "avx512_vnni")]
)
def test_the_packed_dot_product_micro_kernels_are_sixteen_zmm_dot_products(dtype, family):
    """bfloat16 and int8 of c_avx512_dot keep an 8 × 32 block of C in 16 zmm accumulators:
    16 dot products a step of k (a pair or a quad)."""
    from overhead_tui.kit.cbuild import assembly
    from overhead_tui.summary.vocabulary import PRECISION_FAMILIES
    from overhead_tui.worker.hotloop import hot_loop

    rung = _rung("c_avx512_dot")
    code = hot_loop(assembly(rung.SOURCE, rung.FLAGS), PRECISION_FAMILIES[dtype])
    assert (code.family, code.width_bits, code.fp_instructions) == (family, 512, 16)
