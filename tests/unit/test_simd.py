"""The SIMD peak probe's choices on fixed ISAs and its reading of recorded assembly.

The asm snippets are cut from numba 0.68 / LLVM 22 output of the ``simd_fma`` kernel on an
AVX-512 host (zmm), with ``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=`` (ymm), and of the old
128-accumulator kernel compiled for AVX2 (ymm spilled to the stack) and the 2-D variant LLVM
left scalar (``vfmadd231sd`` on memory).
"""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from overhead_tui.engine.probing import (
    SimdTarget,
    analyse_asm,
    asm_warning,
    choose_accumulators,
    numba_target,
)
from overhead_tui.engine.simd import simd_target
from tests.conftest import ROOT

HOST_AVX512 = "+64bit,+avx,+avx2,+avx512f,+avx512vl,+fma,+sse2,+sse4.2,-amx-tile,-avx10.1"
"""A flattened host feature string (llvmlite), cut down."""
AVX512 = SimdTarget("avx512", 512, 32, True, "znver5")
AVX2 = SimdTarget("avx2", 256, 16, True, "haswell")


@pytest.mark.parametrize(
    ("width", "registers", "itemsize", "vectors", "lanes"),
    [
        (256, 16, 8, 12, 4),  # AVX2 float64: 16 ymm − 4 for operands
        (256, 16, 4, 12, 8),  # AVX2 float32
        (512, 32, 8, 16, 8),  # AVX-512 float64: 2 × latency 4 × 2 pipes
        (512, 32, 4, 16, 16),  # AVX-512 float32
        (128, 16, 8, 12, 2),  # SSE float64
        (128, 16, 4, 12, 4),  # SSE float32
    ],
)
def test_accumulators_per_isa(width, registers, itemsize, vectors, lanes):
    chosen = choose_accumulators(width, registers, itemsize)
    assert (chosen.vectors, chosen.lanes, chosen.needed) == (vectors, lanes, 8)
    assert chosen.elements == vectors * lanes
    assert chosen.vectors + 4 <= registers and chosen.vectors >= chosen.needed


def test_accumulators_for_an_unknown_target_and_few_registers():
    unknown = simd_target("mystery-cpu", "")
    assert (unknown.isa, unknown.width_bits, unknown.registers) == ("unknown", 128, 16)
    chosen = choose_accumulators(unknown.width_bits, unknown.registers, 8)
    assert (chosen.vectors, chosen.lanes) == (12, 2)
    few = choose_accumulators(256, 8, 8)  # below latency × pipes: the registers win
    assert few.vectors == 4 and few.needed == 8
    assert choose_accumulators(128, 16, 8, latency=5, pipes=2).vectors == 12  # Haswell: ≥ 10


@pytest.mark.parametrize(
    ("name", "features", "isa", "width", "registers", "fma"),
    [
        ("znver5", HOST_AVX512, "avx512", 512, 32, True),
        ("haswell", "", "avx2", 256, 16, True),  # NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=
        ("haswell", HOST_AVX512, "avx512", 512, 32, True),  # the name alone keeps host flags
        ("znver5", HOST_AVX512 + ",-avx512f", "avx2", 256, 16, True),
        ("znver3", "", "avx2", 256, 16, True),
        ("skylake-avx512", "", "avx512", 512, 32, True),
        ("sandybridge", "", "avx", 256, 16, False),
        ("skylake", "-avx", "sse", 128, 16, False),  # dropping avx drops avx2 and fma
        ("nehalem", "", "sse", 128, 16, False),
        ("generic", "", "sse", 128, 16, False),
        ("neoverse-n1", "+neon,+fp-armv8", "neon", 128, 32, True),
        ("mystery-cpu", "", "unknown", 128, 16, False),
    ],
)
def test_target_isa_from_name_and_features(name, features, isa, width, registers, fma):
    target = simd_target(name, features)
    assert (target.isa, target.width_bits, target.registers, target.fma) == (
        isa,
        width,
        registers,
        fma,
    )
    assert target.cpu_name == name


def test_numba_target_follows_the_environment_variables(monkeypatch):
    from numba.core import config

    monkeypatch.setattr(config, "CPU_NAME", "haswell")
    monkeypatch.setattr(config, "CPU_FEATURES", "")
    target = numba_target()
    assert (target.isa, target.cpu_name) == ("avx2", "haswell")
    assert target.source == "NUMBA_CPU_NAME='haswell', NUMBA_CPU_FEATURES=''"
    monkeypatch.setattr(config, "CPU_NAME", None)
    monkeypatch.setattr(config, "CPU_FEATURES", "+sse2,-avx")
    assert numba_target().isa == "sse" and "NUMBA_CPU_NAME" not in numba_target().source


ZMM_LOOP = """\
_ZN8simd_fma5block:
\tmovq\t16(%rsp), %rax
\ttestq\t%rdx, %rdx
\tjle\t.LBB0_4
\tvbroadcastsd\t%xmm0, %zmm17
\tvmovupd\t(%rax), %zmm16
\tvmovupd\t64(%rax), %zmm15
\t.p2align\t4
.LBB0_2:                                # =>This Inner Loop Header: Depth=1
\tvfmadd213pd\t%zmm1, %zmm17, %zmm16
\tvfmadd213pd\t%zmm1, %zmm17, %zmm15
\tvfmadd213pd\t%zmm1, %zmm17, %zmm16
\tvfmadd213pd\t%zmm1, %zmm17, %zmm15
\tdecq\t%rdx
\tcmpq\t$1, %rdx
\tjg\t.LBB0_2
\tvmovupd\t%zmm16, (%rax)
\tvmovupd\t%zmm15, 64(%rax)
.LBB0_4:
\tvmovsd\t(%rax), %xmm0
\tretq
"""

YMM_SPILLED = """\
\tsubq\t$488, %rsp
\tvmovupd\t992(%rax), %ymm0
\tvmovupd\t%ymm0, (%rsp)
.LBB0_2:
\tvmovupd\t32(%rsp), %ymm0
\tvfmadd213pd\t%ymm1, %ymm15, %ymm0
\tvmovupd\t%ymm0, 32(%rsp)
\tvfmadd213pd\t%ymm1, %ymm15, %ymm14
\tvfmadd213pd\t%ymm1, %ymm15, %ymm13
\tvmovupd\t-128(%rsp), %ymm0
\tvfmadd213pd\t%ymm1, %ymm15, %ymm0
\tvmovupd\t%ymm0, -128(%rsp)
\tdecq\t%rdx
\tcmpq\t$1, %rdx
\tjg\t.LBB0_2
\tvmovups\t32(%rsp), %ymm0
\tvmovups\t%ymm0, (%rax)
\taddq\t$488, %rsp
\tretq
"""

SCALAR_ON_MEMORY = """\
.LBB0_2:
\tvmovsd\t(%rax), %xmm2
\tvfmadd231sd\t%xmm2, %xmm0, %xmm1
\tvmovsd\t%xmm1, (%rax)
\tvmovsd\t8(%rax), %xmm2
\tvfmadd231sd\t%xmm2, %xmm0, %xmm1
\tvmovsd\t%xmm1, 8(%rax)
\tdecq\t%rdx
\tjne\t.LBB0_2
\tretq
"""


def test_packed_zmm_fmas_in_registers_are_clean():
    report = analyse_asm(ZMM_LOOP)
    assert report.hot_loop and report.packed_fma == {"zmm": 4}
    assert (report.width_bits, report.fma_on_widest, report.scalar_fma) == (512, 4, 0)
    assert not report.spills and report.memory_accesses == 0  # loads before, stores after
    assert asm_warning(report, AVX512) is None


def test_ymm_on_an_avx512_target_is_flagged_as_narrow():
    ymm = analyse_asm(ZMM_LOOP.replace("zmm", "ymm"))
    assert ymm.width_bits == 256 and ymm.fma_on_widest == 4
    assert asm_warning(ymm, AVX2) is None
    assert "256-bit registers while the target" in asm_warning(ymm, AVX512)


def test_a_spill_to_the_stack_in_the_hot_loop():
    report = analyse_asm(YMM_SPILLED)
    assert report.packed_fma == {"ymm": 4} and report.spills
    assert report.stack_accesses == 4  # two reloads, two spills; not the epilogue's
    assert "4 stack loads/stores in the hot loop (register spills)" in asm_warning(report, AVX2)


def test_scalar_fmas_on_memory():
    report = analyse_asm(SCALAR_ON_MEMORY)
    assert report.packed_fma == {} and report.scalar_fma == 2 and report.width_bits is None
    assert not report.spills and report.memory_accesses == 4
    warning = asm_warning(report, AVX2)
    assert "no packed FMA" in warning and "2 scalar FMAs in the hot loop" in warning


def test_memory_traffic_without_spills_is_flagged():
    text = ZMM_LOOP.replace(
        "\tvfmadd213pd\t%zmm1, %zmm17, %zmm16\n\tvfmadd213pd\t%zmm1, %zmm17, %zmm15\n\tdecq",
        "\tvfmadd213pd\t(%rax), %zmm17, %zmm16\n\tvmovupd\t%zmm16, (%rax)\n\tdecq",
    )
    report = analyse_asm(text)
    assert not report.spills and report.memory_accesses == 2
    assert "accumulators not kept in registers" in asm_warning(report, AVX512)


def test_rbp_is_the_stack_only_with_a_frame_pointer():
    body = (
        ".LBB0_2:\n\tvfmadd213pd\t%ymm1, %ymm15, %ymm0\n\tvmovupd\t%ymm0, 32(%rbp)\n\tjg\t.LBB0_2\n"
    )
    assert not analyse_asm(body).spills  # rbp as an ordinary pointer register
    framed = analyse_asm("\tpushq\t%rbp\n\tmovq\t%rsp, %rbp\n" + body)
    assert framed.spills and framed.stack_accesses == 1


def test_the_hot_loop_is_the_loop_with_the_fmas():
    text = SCALAR_ON_MEMORY.replace(".LBB0_2", ".LBB9_1") + YMM_SPILLED
    report = analyse_asm(text)
    assert report.packed_fma == {"ymm": 4} and report.scalar_fma == 0
    no_loop = analyse_asm("\tvfmadd213ps\t%ymm1, %ymm2, %ymm3\n\tretq\n")
    assert not no_loop.hot_loop and no_loop.packed_fma == {"ymm": 1}
    assert "no loop around the FMAs" in asm_warning(no_loop, AVX2)


def test_arm_fmla_is_packed():
    text = ".LBB0_1:\n\tfmla\tv0.2d, v1.2d, v2.2d\n\tfmla\tv3.2d, v1.2d, v2.2d\n\tb.ne\t.LBB0_1\n"
    report = analyse_asm(text)
    neon = SimdTarget("neon", 128, 32, True, "neoverse-n1")
    assert report.packed_fma == {"v": 2} and asm_warning(report, neon) is None


def test_no_fma_on_the_target_is_said():
    report = analyse_asm(".L1:\n\tmulpd\t%xmm1, %xmm0\n\taddpd\t%xmm2, %xmm0\n\tjne\t.L1\n")
    sse = SimdTarget("sse", 128, 16, False, "nehalem")
    assert "(the target sse has no FMA)" in asm_warning(report, sse)


class _FixedTimes:
    """A probe context that times nothing: every sample is 1 ms."""

    @staticmethod
    def time(fn, *args):
        fn(1, *args[1:])  # one step: runs the kernel once, untimed
        return [1e-3] * 3


def _load_probe():
    import importlib.util

    spec = importlib.util.spec_from_file_location("probe_simd_fma", ROOT / "probes/simd_fma.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_probe_details_record_the_code_that_ran():
    probe = _load_probe()
    measured = probe.measure(_FixedTimes())
    details = measured["details"]
    for prefix in ("", "float32_"):
        assert {"lanes", "accumulators", "fma_instructions", "spills"} <= {
            k.removeprefix(prefix) for k in details if k.startswith(prefix)
        }
    assert {"isa", "target_cpu", "target_from", "simd_width_bits", "one_core_gflops"} <= set(
        details
    )
    assert details["float32_lanes"] == 2 * details["lanes"]
    elements = details["lanes"] * details["accumulators"]
    flops = 2 * probe.CHAIN * elements * probe.STEPS
    assert details["one_core_gflops"] == pytest.approx(flops / 1e-3 / 1e9)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 targets")
def test_forced_avx2_compiles_packed_ymm_fmas_without_spills():
    """NUMBA_CPU_NAME=haswell with empty features: 12 ymm chains, in registers (the old
    128-accumulator block spilled here)."""
    path = str(ROOT / "probes" / "simd_fma.py")
    code = (
        "import importlib.util, json, numpy as np\n"
        f"spec = importlib.util.spec_from_file_location('p', {path!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "t = m.numba_target()\n"
        "out = {'isa': t.isa}\n"
        "for dt in (np.float64, np.float32):\n"
        "    _, _, chosen, report, warning = m._compile(dt, t)\n"
        "    out[dt.__name__] = [chosen.vectors, report.width_bits, report.fma_on_widest,\n"
        "                        report.spills, report.scalar_fma, warning]\n"
        "print(json.dumps(out))\n"
    )
    env = {"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": "", "PYTHONPATH": str(ROOT)}
    import json
    import os

    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["isa"] == "avx2"
    for dtype in ("float64", "float32"):
        vectors, width, fmas, spills, scalar, warning = out[dtype]
        assert (vectors, width, spills, scalar, warning) == (12, 256, False, 0, None)
        assert fmas == 12 * 4  # CHAIN dependent FMAs per chain and step


def test_probes_command_prints_the_text_details(monkeypatch, capsys):
    import argparse

    from overhead_tui.commands import probes as command
    from overhead_tui.summary.probes import ProbeResult

    result = ProbeResult("simd_fma", "SIMD FMA peak", "GFLOP/s", "simd_compute", 140.0, 0.01)
    result.samples = [140.0]
    result.details = {"isa": "avx2", "spills": False, "lanes": 4, "asm_warning": "2 scalar FMAs"}
    monkeypatch.setattr(command, "load_probes", lambda *a, **k: {"simd_fma": result})
    assert command.run(argparse.Namespace(refresh=False, python=sys.executable)) == 0
    out = capsys.readouterr().out
    for line in ("isa = avx2", "spills = no", "lanes = 4", "asm_warning = 2 scalar FMAs"):
        assert line in out


def test_the_probe_cache_key_follows_numba_target_variables(monkeypatch):
    from overhead_tui.engine.probe_runs import cache_key
    from overhead_tui.plugins.probes import discover_probes

    specs = discover_probes()
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    monkeypatch.delenv("NUMBA_CPU_FEATURES", raising=False)
    host = cache_key(specs, sys.executable)
    monkeypatch.setenv("NUMBA_CPU_NAME", "haswell")
    named = cache_key(specs, sys.executable)
    monkeypatch.setenv("NUMBA_CPU_FEATURES", "")
    assert len({host, named, cache_key(specs, sys.executable)}) == 3
