"""torch_matmul: skipped with the CPU-build command where torch is missing, run where it is
installed (the JAX rungs are checked in the full ladder's test, tests/e2e/test_cli.py)."""

from __future__ import annotations

import importlib.util

import pytest

from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST


def _run(cli, out, name: str, *extra: str, code: int = 0) -> RunSummary:
    proc = cli("run", "--scenario", name, *FAST, *extra, "--out", out, "--json", out / "s.json")
    assert proc.returncode == code, proc.stderr
    return RunSummary.load(out / "s.json")


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_a_missing_torch_is_skipped_with_the_cpu_build_command(cli, tmp_path):
    (result,) = _run(cli, tmp_path, "torch_matmul", code=1).scenarios
    assert result.status == "skipped"
    assert "download.pytorch.org/whl/cpu" in result.error and "make torch" in result.error


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="make torch installs it")
def test_torch_matmul_runs_where_its_cpu_build_is_installed(cli, tmp_path):
    (result,) = _run(cli, tmp_path, "torch_matmul").scenarios
    assert result.status == "ok", result.error


def test_jax_without_a_cpu_backend_is_skipped_with_the_fix(cli, tmp_path, monkeypatch):
    pytest.importorskip("jax", reason="the test extra installs JAX")
    monkeypatch.setenv("JAX_PLATFORMS", "cuda")  # the workers inherit it; no GPU here
    (result,) = _run(cli, tmp_path, "jax_matmul", code=1).scenarios
    assert result.status == "skipped"
    assert "JAX has no CPU backend" in result.error and "set it to cpu" in result.error


def test_a_worker_that_xla_aborts_names_the_variable_and_the_fix():
    from overhead_tui.engine.results import _crash_reason

    tail = "F1206 12:33:07.736220 10243 parse_flags_from_env.cc:234] Unknown flag in XLA_FLAGS: -x"
    reason = _crash_reason(1, tail)
    assert "XLA_FLAGS holds a flag XLA does not know" in reason
    assert reason.endswith("fix: correct or unset XLA_FLAGS") and "Unknown flag" in reason
    assert "XLA_FLAGS" not in _crash_reason(1, "Segmentation fault")
