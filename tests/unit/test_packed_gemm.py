"""The BLIS-style rungs' blocking on every CPU of the corpus, their packing and edges on fixed
inputs, and the micro-kernel the compiler makes of them at each ISA width."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from overhead_tui.kit.cbuild import assembly, build
from overhead_tui.kit.packed_gemm import KC_RANGE, MAX_NC, PACKED_GEMM_SOURCE, gemm_blocking
from overhead_tui.kit.simd import best_isa, isa_target
from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.worker.hotloop import hot_loop

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "cpus"
MACHINES = sorted(p.name for p in CORPUS.iterdir() if (p / "machine.json").exists())
EXPECTED_WIDTH = {  # the vector bytes -march=native gives each CPU of the corpus
    "emr-avx512-amx": 64,
    "intel-amx-kvm167": 64,
    "xeon-avx512-amx-licence": 64,
    "zen4-avx512-genoa": 64,
    "zen3-avx2-own": 32,
    "zen3-avx2-shared": 32,
    "neoverse-n1-graviton2": 16,
}


@pytest.mark.parametrize("name", MACHINES)
@pytest.mark.parametrize("real_bytes", [8, 4])
def test_the_blocking_of_every_cpu_fits_its_registers_and_caches(name, real_bytes):
    caches = json.loads((CORPUS / name / "machine.json").read_text())["caches"]
    cpu = parse_cpuinfo((CORPUS / name / "cpuinfo.txt").read_text())
    blocking = gemm_blocking(caches, set(cpu.isa), real_bytes)
    target = isa_target(best_isa(cpu.isa))
    assert blocking.vector_bytes == EXPECTED_WIDTH[name]
    # accumulators, one vector of B per column vector and a broadcast of A: no spill
    assert blocking.mr * blocking.nv + blocking.nv + 1 <= target.registers
    assert blocking.nr == blocking.nv * blocking.vector_bytes // real_bytes
    assert KC_RANGE[0] <= blocking.kc <= KC_RANGE[1] and blocking.kc % 4 == 0
    assert blocking.mr * blocking.kc * real_bytes <= caches["L1d"] // 2  # A micro-panel
    assert blocking.mc % blocking.mr == 0
    assert blocking.mc * blocking.kc * real_bytes <= caches["L2"] // 2  # A block
    assert blocking.nc % blocking.nr == 0 and blocking.nc <= MAX_NC
    assert blocking.kc * blocking.nc * real_bytes <= caches["L3"] // 2  # B panel


def test_missing_cache_levels_take_the_one_below():
    assert gemm_blocking({"L1d": 32768, "L2": 1 << 20}, {"avx2", "fma"}) == gemm_blocking(
        {"L1d": 32768, "L2": 1 << 20, "L3": 1 << 20}, {"avx2", "fma"}
    )


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("threads", [False, True], ids=["one thread", "openmp"])
def test_packing_and_edges_give_the_product_on_fixed_inputs(threads):
    """Blocks far smaller than the matrices (KC 8, MC 16, NC 48) and sizes that are no
    multiple of MR, NR or any block: every edge of the packing is crossed."""
    from cffi import FFI

    openmp = ["-fopenmp"] if threads else []
    blocks = ["-DGEMM_VECTOR_BYTES=16", "-DGEMM_MR=4", "-DGEMM_NV=2", "-DGEMM_KC=8"]
    blocks += ["-DGEMM_MC=16", "-DGEMM_NC=48"]
    ffi = FFI()
    lib = build(
        "packed_gemm_test", PACKED_GEMM_SOURCE, ["-O2", *blocks, *openmp], "float64", openmp
    )[1]
    rng = np.random.default_rng(1)
    for n in (1, 5, 17, 50, 97):
        a, b = rng.random((n, n)), rng.random((n, n))
        c = np.full((n, n), np.nan)
        lib.matmul(*(ffi.from_buffer("double[]", x) for x in (a, b, c)), n)
        np.testing.assert_allclose(c, a @ b, rtol=1e-12, atol=1e-12)


def _march_supported(march):
    probe = subprocess.run(
        ["cc", f"-march={march}", "-x", "c", "-E", "-"], input="", capture_output=True, text=True
    )
    return probe.returncode == 0


@pytest.mark.parametrize(
    ("march", "flags", "width", "fma"),
    [
        ("x86-64-v4", {"avx512f", "avx2", "fma"}, 512, True),
        ("x86-64-v3", {"avx2", "fma"}, 256, True),
        ("x86-64", set(), 128, False),
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_micro_kernel_is_mr_times_nv_fmas_at_the_isas_width(march, flags, width, fma, dtype):
    if shutil.which("cc") is None or not _march_supported(march):
        pytest.skip(f"this compiler has no -march={march}")
    blocking = gemm_blocking({"L1d": 32768, "L2": 1 << 20, "L3": 32 << 20}, flags)
    code = hot_loop(
        assembly(PACKED_GEMM_SOURCE, ["-O3", f"-march={march}", *blocking.defines()], dtype)
    )
    products = blocking.mr * blocking.nv
    assert code.hot_loop and code.width_bits == width
    if fma:  # one FMA per accumulator per k, nothing else in the FP pipes
        assert code.fma_instructions == products == code.fp_instructions
    else:  # SSE2 has no FMA: a multiply and an add per accumulator
        assert code.fp_instructions == 2 * products and code.fma_instructions == 0
