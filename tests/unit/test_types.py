"""The package type-checks clean under mypy (its settings: pyproject.toml's [tool.mypy])."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # about 6 s from a cold mypy cache
def test_mypy_finds_no_type_errors_in_the_package(tmp_path):
    pytest.importorskip("mypy", reason="mypy is in the test extras: make test installs it")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-4000:]
