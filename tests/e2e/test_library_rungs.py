"""The library rungs beside numpy's BLAS: JAX's jitted matmul validated and timed with the
kernel XLA chose recorded, and torch skipped with the CPU-build command where it is missing."""

from __future__ import annotations

import importlib.util

import pytest

from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST


def _run(cli, out, name: str, *extra: str, code: int = 0) -> RunSummary:
    proc = cli("run", "--scenario", name, *FAST, *extra, "--out", out, "--json", out / "s.json")
    assert proc.returncode == code, proc.stderr
    return RunSummary.load(out / "s.json")


def test_jax_matmul_is_validated_timed_and_names_xlas_kernel(cli, tmp_path):
    pytest.importorskip("jax", reason="the test extra installs JAX")
    (result,) = _run(cli, tmp_path, "jax_matmul").scenarios  # float64: jax_enable_x64 set
    assert result.status == "ok", result.error
    assert result.max_abs_error is not None and result.max_abs_error <= result.tolerance
    build = result.build
    assert build is not None and build.compiler == "XLA" and "jax " in build.compiler_version
    assert build.module and build.module != "unknown"  # the kernel library read off its HLO
    # the cores its threads got, one figure per sample (CPU time over wall time)
    assert len(result.sample_cores) == len(result.samples_s) == 2
    assert all(0 < c < 64 for c in result.sample_cores)


def test_jax_fori_naive_is_read_from_xlas_own_machine_code(cli, tmp_path, monkeypatch):
    """The three fori_loops validated and timed; the hot loop read from the object files XLA
    dumped (objdump), and the dump folder gone when the worker ends."""
    pytest.importorskip("jax", reason="the test extra installs JAX")
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the workers inherit it
    (result,) = _run(cli, tmp_path / "run", "jax_fori_naive").scenarios
    assert result.status == "ok", result.error
    assert result.build is not None and ".o" in result.build.module
    code = result.generated_code
    assert code is not None and code.hot_loop and code.fma_instructions >= 1
    assert "objdump" in code.method
    assert list(temp.iterdir()) == []


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_a_missing_torch_is_skipped_with_the_cpu_build_command(cli, tmp_path):
    (result,) = _run(cli, tmp_path, "torch_matmul", code=1).scenarios
    assert result.status == "skipped"
    assert "download.pytorch.org/whl/cpu" in result.error and "make torch" in result.error


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="make torch installs it")
def test_torch_matmul_runs_where_its_cpu_build_is_installed(cli, tmp_path):
    (result,) = _run(cli, tmp_path, "torch_matmul").scenarios
    assert result.status == "ok", result.error
