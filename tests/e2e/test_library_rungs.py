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
