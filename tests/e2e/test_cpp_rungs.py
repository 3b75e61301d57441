"""The C++ rungs: built by the C++ compiler, validated and timed, their hot loop and loop nest
read from their own C++ source; skipped with the fix where there is no C++ compiler."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from overhead_tui.plugins.scenarios import builtin_scenarios_dir
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST

CPP_RUNGS = ("cpp_vector_naive", "cpp_flat_native")
EIGEN_RUNGS = ("cpp_eigen", "cpp_eigen_native")
HAS_EIGEN = (Path("/usr/include/eigen3") / "Eigen" / "Dense").is_file()
HAS_XSIMD = Path("/usr/include/xsimd/xsimd.hpp").is_file()

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")


def _module(name):
    path = builtin_scenarios_dir() / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"scenario_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_cpp_rung_is_built_as_cpp_validated_and_timed(cli, tmp_path):
    proc = cli("run", *(a for n in CPP_RUNGS for a in ("--scenario", n)), *FAST,
               "--out", tmp_path / "run")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(tmp_path / "run" / "summary.json")
    for name in CPP_RUNGS:
        result = summary.scenario(name)
        assert result.status == "ok" and result.gflops, (name, result.error)
        assert result.build is not None and "c++" in result.build.compiler
        assert result.build.flags[-2:] == ["-x", "c++"]
        # its hot loop read from the assembly its own build kept (no second compile)
        assert result.generated_code.method == "c++'s assembly of the rung's build"


def test_the_hot_loop_and_loop_nest_of_cpp_source_are_read_from_it():
    """The containers of containers load each row's pointer inside the loop (A's element, B's
    row pointer, B's element: three loads an iteration where C's flat ijk has two); both loop
    nests are counted by gcov at n."""
    from overhead_tui.worker.compiled_rung import generated_code

    found = {name: generated_code(_module(name), "float64", 32) for name in CPP_RUNGS}
    for name, code in found.items():
        assert code is not None and code.fp_instructions, name
        assert code.method.startswith("c++ -S"), code.method
        if shutil.which("gcov"):
            assert code.loop_nest is not None and code.loop_nest.loops, name
            assert max(loop[1] for loop in code.loop_nest.loops) == 32**3  # the k loop's trips
    assert found["cpp_vector_naive"].loads >= 3


def test_without_a_cpp_compiler_the_rung_is_skipped_with_the_fix(cli, tmp_path):
    proc = cli("run", "--scenario", "cpp_vector_naive", *FAST, "--out", tmp_path / "run",
               env={"CXX": str(tmp_path / "no-such-g++")})  # fmt: skip
    result = RunSummary.load(tmp_path / "run" / "summary.json").scenario("cpp_vector_naive")
    assert result.status == "skipped", proc.stderr
    assert "fix: point CXX at a C++ compiler" in (result.error or "")


@pytest.mark.skipif(not HAS_EIGEN, reason="Eigen's headers: make test installs libeigen3-dev")
def test_eigens_product_at_default_and_native_flags_is_validated_and_read(cli, tmp_path):
    """Eigen's own GEMM kernel, built twice from one source: at the distribution's default
    flags its hot loop is 128-bit (SSE2) whatever the CPU has; with -march=native it is wider
    where the CPU has wider vectors (read by the run from the assembly its build kept)."""
    from overhead_tui.kit.cbuild import cpu_flags

    proc = cli("run", *(a for n in EIGEN_RUNGS for a in ("--scenario", n)), *FAST,
               "--out", tmp_path / "run")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(tmp_path / "run" / "summary.json")
    assert all(summary.scenario(n).status == "ok" for n in EIGEN_RUNGS)
    default, native = (summary.scenario(n).generated_code for n in EIGEN_RUNGS)
    assert default is not None and default.width_bits == 128 and not default.fma_instructions
    assert native is not None
    if "avx2" in cpu_flags():
        assert native.width_bits >= 256 and native.fma_instructions


def test_without_eigens_headers_the_rung_is_skipped_with_the_install_line(tmp_path):
    """A rung's declared HEADERS are looked for in its -I folders before the build."""
    from overhead_tui.api import Unavailable
    from overhead_tui.kit.c_rung import complete

    module = _module("cpp_eigen")
    module.NAME = "cpp_eigen"
    module.FLAGS = ["-O2", f"-I{tmp_path / 'no-eigen'}"]
    complete(module)
    with pytest.raises(Unavailable, match="apt-get install libeigen3-dev"):
        module.setup(None, None)


@pytest.mark.skipif(not HAS_XSIMD, reason="xsimd's headers: make test installs libxsimd-dev")
def test_the_simd_library_rung_runs_batches_of_the_cpus_widest_vectors(cli, tmp_path):
    """xsimd's batches, -O3 -march=native: one FMA of the widest vectors the flags allow per
    iteration, as the auto-vectorised C ikj loop has; its header is found where Debian puts
    it (no -I folder)."""
    from overhead_tui.kit.cbuild import cpu_flags

    proc = cli("run", "--scenario", "cpp_xsimd_ikj", *FAST, "--out", tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    result = RunSummary.load(tmp_path / "run" / "summary.json").scenario("cpp_xsimd_ikj")
    assert result.status == "ok" and result.gflops, result.error
    assert result.build.flags[-2:] == ["-x", "c++"]
    code = result.generated_code
    assert code is not None and code.fma_instructions
    if "avx2" in cpu_flags():
        assert code.width_bits >= 256
