"""Shared fixtures: paths, a CLI runner and a recorded summary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
FAULTY = FIXTURES / "faulty"
RECORDED_SUMMARY = FIXTURES / "recorded_summary.json"
"""A real run of the default ladder (schema version 2, with probes and breakdowns)."""
RECORDED_SUMMARY_V3 = FIXTURES / "recorded_summary_v3.json"
"""A real run of the default ladder (schema version 3, with the machine's measured limits)."""
SUMMARY_V1 = FIXTURES / "summary_v1.json"
"""A real run saved by schema version 1 (no probes, counts or breakdowns)."""
FAST = ["--size", "8", "--repeats", "2", "--min-time", "0.001", "--no-probes"]
"""Options that make a run take well under a second per scenario."""


def run_cli(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m overhead_tui ARGS`` and capture its output (text)."""
    return subprocess.run(
        [sys.executable, "-m", "overhead_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (exited, not yet reaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout: float = 5.0) -> bool:
    """Wait until ``pid`` is gone (see :func:`process_alive`); True if it went in time."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process_alive(pid):
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def cli():
    """The CLI runner."""
    return run_cli
