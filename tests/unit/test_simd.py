"""The SIMD peak probe: its ISA-explicit kernels' generated code, its choices, and the reading
of recorded assembly.

The asm snippets are cut from numba 0.68 / LLVM 22 output of the old numba ``simd_fma`` kernel
on an AVX-512 host (zmm), with ``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=`` (ymm), of the
128-accumulator kernel compiled for AVX2 (ymm spilled to the stack) and the 2-D variant LLVM
left scalar (``vfmadd231sd`` on memory): the analysis reads any compiler's output.
"""

from __future__ import annotations

import platform
import sys

import pytest

from overhead_tui.kit.probing import (
    SimdTarget,
    analyse_asm,
    asm_warning,
    choose_accumulators,
    isa_target,
)
from tests.conftest import ROOT

AVX512 = isa_target("avx512")
AVX2 = isa_target("avx2")


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


def test_few_registers_cap_the_accumulators():
    few = choose_accumulators(256, 8, 8)  # below latency × pipes: the registers win
    assert few.vectors == 4 and few.needed == 8
    assert choose_accumulators(128, 16, 8, latency=5, pipes=2).vectors == 12  # Haswell: ≥ 10


def test_the_c_kernels_hold_the_accumulators_the_rule_chooses():
    probe = _load_probe()
    for isa, written in probe.ACCUMULATORS.items():
        target = isa_target(isa)
        for itemsize in (8, 4):
            assert choose_accumulators(target.width_bits, target.registers, itemsize).vectors == (
                written
            ), isa
        assert f"{isa}_f64(long steps, double x, double y) {{ BODY(REP{written}) }}" in (
            probe.SOURCE
        )


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
@pytest.mark.parametrize(("isa", "width"), [("avx512", 512), ("avx2", 256)])
def test_the_generated_code_is_as_wide_as_the_isa_on_any_host(isa, width):
    """gcc -S of the probe's source (compiled, not run: the AVX-512 kernel is checked on a CPU
    without AVX-512 too): one packed FMA per accumulator on the ISA's registers, in registers."""
    from overhead_tui.kit.cbuild import assembly

    probe = _load_probe()
    code = assembly(probe.SOURCE, probe.FLAGS)
    for suffix in ("f64", "f32"):
        report = analyse_asm(probe.function_asm(code, f"{isa}_{suffix}"))
        assert report.hot_loop and report.width_bits == width, suffix
        assert report.fma_on_widest == probe.ACCUMULATORS[isa]
        assert (report.scalar_fma, report.spills, report.memory_accesses) == (0, False, 0)
        assert asm_warning(report, isa_target(isa)) is None


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
@pytest.mark.parametrize(("isa", "width"), [("avx512", 512), ("avx2", 256)])
def test_the_loaded_clock_kernel_runs_imuls_beside_fmas_of_the_isa(isa, width):
    """The clock under FMA load: 8 dependent imuls (the chain that sets the pace) and 12
    packed FMAs of the ISA's width in one loop, nothing spilled, on any x86 host."""
    from overhead_tui.kit.cbuild import assembly

    probe = _load_probe()
    body = probe.function_asm(assembly(probe.SOURCE, probe.FLAGS), f"{isa}_clock")
    report = analyse_asm(body)
    assert sum(1 for line in body.splitlines() if line.split()[:1] == ["imul"]) == 8
    assert (report.width_bits, report.fma_on_widest, report.spills) == (width, 12, False)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
def test_the_l1_kernels_move_their_accesses_of_each_width_and_refuse_a_width_the_cpu_lacks():
    """The L1 bound's kernels: 8 loads, 8 stores, and 8 loads with 4 stores of each width in
    the generated code; a width this CPU has runs, one it lacks answers -1 (no SIGILL)."""
    from overhead_tui.kit import chains
    from overhead_tui.kit.cbuild import assembly
    from overhead_tui.machine.cpu import read_cpu_model

    lines = [line.split() for line in assembly(chains.SOURCE, chains.FLAGS).splitlines()]
    for op, register in (("movq", "%xmm"), ("movupd", "%xmm"), ("vmovupd", "%ymm")):
        moves = [w for w in lines if w[:1] == [op] and register in " ".join(w[1:])]
        loads = [w for w in moves if "(%" in w[1]]  # the memory operand first: a load
        assert len(moves) == 28 and len(loads) == 16, (op, register, moves)
    zmm = [w for w in lines if w[:1] == ["vmovupd"] and "%zmm" in " ".join(w)]
    assert len(zmm) == 28 and sum("(%" in w[1] for w in zmm) == 16
    assert chains.L1_KINDS == {"loads": (0, 8), "stores": (1, 8), "mixed": (2, 12)}
    lib = chains.chain_library()
    has = {
        64: True,
        128: True,
        256: "avx" in read_cpu_model().isa,
        512: "avx512f" in read_cpu_model().isa,
    }
    assert chains.l1_widths() == (64, 128, 256, 512)
    for width, present in has.items():
        for kind in (0, 1, 2):
            assert lib.l1_kernel(3, width, kind) == (3 if present else -1), (width, kind)
    assert lib.l1_kernel(3, 1024, 0) == -1 and lib.l1_kernel(3, 64, 3) == -1


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
def test_the_shuffle_kernels_hold_their_permutes_and_fmas_and_refuse_a_width_the_cpu_lacks():
    """The shuffle term's kernels: 8 ``vpermpd`` alone, and 8 among 12 FMAs, of each width in
    the generated code; a width this CPU has runs, one it lacks answers -1 (no SIGILL)."""
    from overhead_tui.kit import chains
    from overhead_tui.kit.cbuild import assembly
    from overhead_tui.machine.cpu import read_cpu_model

    lines = [line.split() for line in assembly(chains.SOURCE, chains.FLAGS).splitlines()]
    for register in ("%ymm", "%zmm"):
        permutes = [w for w in lines if w[:1] == ["vpermpd"] and register in " ".join(w)]
        assert len(permutes) == 16, (register, permutes)  # 8 alone, 8 in the mix
    lib = chains.chain_library()
    isa = read_cpu_model().isa
    for width, present in ((256, "avx2" in isa), (512, "avx512f" in isa)):
        for mix in (0, 1):
            assert lib.shuffle_throughput(3, width, mix) == (3 if present else -1)
    assert lib.shuffle_throughput(3, 128, 0) == -1


def test_a_forced_isa_is_taken_only_when_the_cpu_has_it():
    from overhead_tui.kit.simd import chosen_isa

    assert chosen_isa("avx512", None) == ("avx512", "host")
    assert chosen_isa("avx512", "AVX2") == ("avx2", "OVERHEAD_TUI_PEAK_ISA=avx2")
    assert chosen_isa("avx2", "sse") == ("sse", "OVERHEAD_TUI_PEAK_ISA=sse")
    for best, forced in (("avx2", "avx512"), ("avx2", "neon"), ("neon", "avx2"), ("avx2", "x")):
        with pytest.raises(ValueError, match="OVERHEAD_TUI_PEAK_ISA"):  # the probe: Unavailable
            chosen_isa(best, forced)


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
    assert "256-bit registers while the kernel's ISA (avx512)" in asm_warning(ymm, AVX512)


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
    neon = isa_target("neon")
    assert report.packed_fma == {"v": 2} and asm_warning(report, neon) is None


def test_no_fma_on_the_target_is_said():
    report = analyse_asm(".L1:\n\tmulpd\t%xmm1, %xmm0\n\taddpd\t%xmm2, %xmm0\n\tjne\t.L1\n")
    sse = SimdTarget("sse", 128, 16, False)
    assert "(the target sse has no FMA)" in asm_warning(report, sse)


class _FixedTimes:
    """A probe context that times nothing: every sample is 1 ms (each kernel runs once)."""

    @staticmethod
    def time(fn, *args):
        fn(*args)
        return [1e-3] * 3

    @staticmethod
    def time_pair(fn_a, fn_b):
        fn_a(), fn_b()
        return [(1e-3, 1e-3)] * 3


def _load_probe():
    import importlib.util

    spec = importlib.util.spec_from_file_location("probe_simd_fma", ROOT / "probes/simd_fma.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_probe_details_record_the_code_that_ran(monkeypatch):
    monkeypatch.delenv("OVERHEAD_TUI_PEAK_ISA", raising=False)
    probe = _load_probe()
    monkeypatch.setattr(probe, "PARALLEL_STEPS", probe.STEPS)
    measured = probe.measure(_FixedTimes())
    details = measured.details
    for prefix in ("", "float32_"):
        assert {"lanes", "accumulators", "fma_instructions", "spills"} <= {
            k.removeprefix(prefix) for k in details if k.startswith(prefix)
        }
    assert {"isa", "best_isa", "target_from", "simd_width_bits", "parallel_cores"} <= set(details)
    assert details["target_from"] == "host" and details["isa"] == details["best_isa"]
    assert details["float32_lanes"] == 2 * details["lanes"]
    assert details["fma_instructions"] == details["accumulators"]
    elements = details["lanes"] * details["accumulators"]
    flops = 2 * elements * probe.STEPS
    assert details["one_core_gflops"] == pytest.approx(flops / 1e-3 / 1e9)
    assert details["parallel_cores"] == pytest.approx(details["threads"])


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


def test_the_probe_cache_key_follows_the_target_variables(monkeypatch):
    from overhead_tui.engine.probe_runs import cache_key
    from overhead_tui.plugins.probes import discover_probes

    specs = discover_probes()
    for var in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "OVERHEAD_TUI_PEAK_ISA"):
        monkeypatch.delenv(var, raising=False)
    host = cache_key(specs, sys.executable)
    monkeypatch.setenv("NUMBA_CPU_NAME", "haswell")
    named = cache_key(specs, sys.executable)
    monkeypatch.setenv("OVERHEAD_TUI_PEAK_ISA", "sse")
    assert len({host, named, cache_key(specs, sys.executable)}) == 3


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 kernels")
def test_the_kernels_isa_and_the_cpuinfo_flags_agree_on_this_host():
    """Two ways to the ISA: the C library's ``__builtin_cpu_supports`` and /proc/cpuinfo."""
    from overhead_tui.kit.cbuild import build
    from overhead_tui.kit.simd import best_isa
    from overhead_tui.machine.cpu import read_cpu_model

    probe = _load_probe()
    _, lib, _ = build(probe.NAME, probe.SOURCE, probe.FLAGS, "float64", cdef=probe.CDEF)
    found = {value: name for name, value in probe.ISA_LEVELS.items()}[lib.isa_level()]
    cpu = read_cpu_model()
    assert cpu is not None and best_isa(cpu.isa) == found


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86 assembly")
def test_the_worker_reads_a_c_rungs_hot_loop_from_its_own_source():
    import types

    from overhead_tui.worker.compiled_rung import generated_code

    rung = types.SimpleNamespace(
        SOURCE="void axpy(real_t *y, const real_t *x, real_t a, int n) {\n"
        "  for (int i = 0; i < n; i++) y[i] += a * x[i];\n}\n",
        FLAGS=["-O3", "-mavx2", "-mfma"],
        NAME="axpy_rung",
    )
    code = generated_code(rung, "float64")
    assert code is not None and code.method.startswith("cc -S")
    assert (code.width_bits, code.flops_per_instruction) == (256, 8.0)
    assert generated_code(rung, "float32").flops_per_instruction == 16.0
    assert generated_code(types.SimpleNamespace(kernel=len), "float64") is None


CROSS = "aarch64-linux-gnu-gcc"


@pytest.mark.skipif(
    platform.machine() == "aarch64" or not __import__("shutil").which(CROSS),
    reason=f"{CROSS} not installed (scripts/system-deps.sh installs it on x86-64)",
)
def test_the_arm_kernels_and_chains_are_built_as_written(monkeypatch):
    """Cross-compiled (not run): 16 fmla per NEON kernel accumulating in place (no register
    moves, no spills), and 8 mul and 8 eor in the clock chains."""
    from overhead_tui.kit import chains
    from overhead_tui.kit.cbuild import assembly

    monkeypatch.setenv("CC", CROSS)
    probe = _load_probe()
    code = assembly(probe.SOURCE, probe.FLAGS)
    for suffix in ("f64", "f32"):
        text = probe.function_asm(code, f"neon_{suffix}")
        report = analyse_asm(text)
        assert report.hot_loop and report.packed_fma == {"v": 16}, suffix
        assert asm_warning(report, isa_target("neon")) is None
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if "fmla" in line)
        start = max(i for i in range(first) if lines[i].startswith(".L"))
        end = next(i for i in range(first, len(lines)) if lines[i].split()[:1] == ["bne"])
        assert not [x for x in lines[start:end] if x.split()[:1] == ["mov"]]  # no copies
    words = [line.split()[:1] for line in assembly(chains.SOURCE, chains.FLAGS).splitlines()]
    assert sum(w == ["mul"] for w in words) == 8 and sum(w == ["eor"] for w in words) == 8


def test_a_bad_peak_isa_is_refused_before_anything_is_measured(monkeypatch):
    from overhead_tui.engine import probe_runs
    from overhead_tui.errors import UsageError
    from overhead_tui.machine.cpu import parse_cpuinfo
    from tests.conftest import ROOT as root

    zen3 = parse_cpuinfo((root / "tests/fixtures/cpus/zen3-avx2-own/cpuinfo.txt").read_text())
    monkeypatch.setattr("overhead_tui.machine.cpu.read_cpu_model", lambda: zen3)
    for value in ("", "  ", "AVX2 ", "sse"):
        monkeypatch.setenv("OVERHEAD_TUI_PEAK_ISA", value)
        probe_runs.check_peak_isa()  # accepted
    monkeypatch.setenv("OVERHEAD_TUI_PEAK_ISA", "  ")
    assert probe_runs.peak_isa() is None  # blank is unset: the same cache entry
    for value, said in (("banana", "names no peak kernel"), ("avx512", "this CPU's best is")):
        monkeypatch.setenv("OVERHEAD_TUI_PEAK_ISA", value)
        with pytest.raises(UsageError, match=said) as info:
            probe_runs.check_peak_isa()
        assert "fix:" in str(info.value) and "\n" not in str(info.value)
        with pytest.raises(UsageError):  # the cache-or-measure step checks it first
            next(probe_runs.probe_results(sys.executable, True, probe_runs.Cancel()))
