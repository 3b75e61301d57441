"""The real binary in a real terminal (tmux): opens, draws, drills in, quits cleanly."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from overhead_tui.format import fmt_ratio
from overhead_tui.model import RunSummary
from tests.conftest import RECORDED_SUMMARY

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
BINARY = Path(sys.executable).parent / "overhead-tui"


class Tmux:
    def __init__(self, command: str, size: tuple[int, int]) -> None:
        self.name = f"ot-{uuid.uuid4().hex[:8]}"
        width, height = size
        subprocess.run(
            [
                "tmux",
                "new-session",
                "-d",
                "-s",
                self.name,
                "-x",
                str(width),
                "-y",
                str(height),
                f"{command}; echo EXITED $?; sleep 30",
            ],
            check=True,
        )

    def screen(self) -> str:
        return subprocess.run(
            ["tmux", "capture-pane", "-p", "-t", self.name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
            time.sleep(0.3)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], check=False)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_open_drill_in_and_quit_in_tmux(size):
    tmux = Tmux(f"{BINARY} open {RECORDED_SUMMARY}", size)
    try:
        screen = tmux.wait_for("python_zip_sum")
        naive = RunSummary.load(RECORDED_SUMMARY).scenario("python_naive")
        assert fmt_ratio(naive.vs_dense) in screen and "GFLOP/s" in screen
        tmux.keys("Enter")
        screen = tmux.wait_for("Timings")
        assert "ijk triple loop" in screen
        tmux.keys("Escape", "q")
        assert "EXITED 0" in tmux.wait_for("EXITED")
    finally:
        tmux.close()


def test_live_run_in_tmux_fills_rows(tmp_path):
    tmux = Tmux(
        f"{BINARY} --scenario python_hoisted --scenario numpy_matmul --size 32 "
        f"--repeats 2 --min-time 0.005 --out {tmp_path}",
        (100, 30),
    )
    try:
        screen = tmux.wait_for("done", timeout=60)
        assert screen.count(" ok") >= 2
        tmux.keys("q")
        assert "EXITED 0" in tmux.wait_for("EXITED")
    finally:
        tmux.close()
