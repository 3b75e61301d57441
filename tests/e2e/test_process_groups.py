"""The worker's whole process group ends with the scenario, on every outcome."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

from overhead_tui.engine.spawn import run_command
from tests.conftest import FAST, FAULTY, wait_gone


def _kill_leftovers(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def test_a_child_started_by_setup_ends_with_a_normal_finish(tmp_path):
    record = tmp_path / "children.txt"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "overhead_tui",
            "run",
            "--scenarios-dir",
            FAULTY,
            "--scenario",
            "spawns_child",
            *FAST,
            "--out",
            tmp_path / "run",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "OVERHEAD_TEST_CHILD_PIDS": str(record)},
    )
    pids = [int(x) for x in record.read_text().split()]
    try:
        assert proc.returncode == 0, proc.stderr
        assert pids  # one per setup call (timing and counting)
        assert all(wait_gone(pid, timeout=30) for pid in pids)
    finally:
        _kill_leftovers(pids)


def test_run_command_ends_what_the_command_left_behind(tmp_path):
    script = "sleep 300 </dev/null >/dev/null 2>&1 & echo $!"
    result = run_command(["sh", "-c", script], timeout_s=60)
    pid = int(result.stdout.split()[0])
    try:
        assert result.returncode == 0 and not result.timed_out
        assert wait_gone(pid, timeout=30)
    finally:
        _kill_leftovers([pid])


def test_run_command_timeout_kills_the_group_and_keeps_the_output():
    result = run_command(["sh", "-c", "echo started; sleep 300"], timeout_s=0.5)
    assert result.timed_out and result.returncode == -signal.SIGKILL
    assert result.stdout.strip() == "started"
