"""The real binary in a real terminal (tmux): opens, draws, drills in, quits cleanly."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_ratio
from tests.conftest import (
    FAULTY,
    RECORDED_SUMMARY,
    RECORDED_SUMMARY_V3,
    USER_DIR_VARIABLES,
    fixture_summary,
    wait_gone,
    wait_until,
)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
BINARY = Path(sys.executable).parent / "overhead-tui"


class Tmux:
    """One command in a detached tmux session on a private server (never the user's tmux).

    The server starts with this process's environment, so the command sees the suite's
    private XDG folders (tests/conftest.py) like any other subprocess; they are also set on
    the command line in case a tmux server shares its global environment.
    """

    def __init__(self, command: str, size: tuple[int, int]) -> None:
        self.name = f"ot-{uuid.uuid4().hex[:8]}"
        width, height = size
        env = " ".join(
            f"{v}={shlex.quote(os.environ[v])}" for v in USER_DIR_VARIABLES if v in os.environ
        )
        self._tmux(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(width),
            "-y",
            str(height),
            f"env {env} {command}; echo EXITED $?; sleep 600",
        )
        self.socket = self._tmux("display-message", "-p", "#{socket_path}").stdout.strip()

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.name, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=check,
        )

    def screen(self, joined: bool = False) -> str:
        """What the pane shows; ``joined``: a line the terminal wrapped is one line again."""
        flags = ("-p", "-J") if joined else ("-p",)
        return self._tmux("capture-pane", *flags, "-t", self.name, check=False).stdout

    def keys(self, *keys: str) -> None:
        """Send keys at once; wait for what each one does before sending the next kind."""
        for key in keys:
            self._tmux("send-keys", "-t", self.name, key)

    def wait_until(self, condition, what: str, timeout: float = 120.0) -> str:
        """The screen once ``condition(screen)`` holds; the limit only catches a fault."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not happen in {timeout:g} s; screen:\n{screen}")
            time.sleep(0.1)

    def wait_for(self, *texts: str, timeout: float = 120.0) -> str:
        """The screen once it shows every one of ``texts`` (a frame may be captured half
        drawn, so everything a test looks at on one screen is waited for together)."""
        return self.wait_until(
            lambda screen: all(t in screen for t in texts), f"{texts!r} appearing", timeout
        )

    def close(self) -> None:
        self._tmux("kill-server", check=False)
        if self.socket:
            Path(self.socket).unlink(missing_ok=True)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_open_drill_in_and_quit_in_tmux(size):
    tmux = Tmux(f"{BINARY} open {RECORDED_SUMMARY}", size)
    try:
        naive = fixture_summary(RECORDED_SUMMARY).scenario("python_naive")
        tmux.wait_for("python_zip_sum", fmt_ratio(naive.vs_dense), "GFLOP/s")
        tmux.keys("Enter")
        tmux.wait_for("Timings", "ijk triple loop")
        # a lone Escape followed at once by q would read as Alt+q: wait for the ladder first
        tmux.keys("Escape")
        tmux.wait_until(lambda screen: "Timings" not in screen, "the ladder coming back")
        tmux.keys("q")
        assert "EXITED 0" in tmux.wait_for("EXITED")
    finally:
        tmux.close()


def test_live_run_in_tmux_fills_rows(tmp_path):
    """The app started as a user starts it (probes on: read from the suite's seeded cache)."""
    tmux = Tmux(
        f"{BINARY} --scenario python_hoisted --scenario numpy_matmul --size 32 "
        f"--repeats 2 --min-time 0.005 --out {tmp_path}",
        (100, 30),
    )
    try:
        tmux.wait_until(
            lambda screen: "done" in screen and screen.count(" ok") >= 2, "both rows done and ok"
        )
        tmux.keys("q")
        assert "EXITED 0" in tmux.wait_for("EXITED")
    finally:
        tmux.close()
    # the probes came from the seeded cache, not from a minute of measuring
    recorded = fixture_summary(RECORDED_SUMMARY_V3).probes["dispatch"].value
    (summary,) = tmp_path.glob("**/summary.json")  # the app makes a run folder in --out
    assert RunSummary.load(summary).probes["dispatch"].value == recorded


def _worker_pid(runs: Path, name: str) -> int | None:
    """The pid of scenario ``name``'s worker once a run in ``runs`` has started it."""
    for log in runs.glob("*/log.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("kind") == "started" and event.get("name") == name:
                return int(event["pid"])
    return None


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


@pytest.mark.parametrize(
    ("stop", "code", "said"),
    [("C-c", 130, "interrupted"), ("SIGTERM", 130, "interrupted"), ("q", 0, "quit before")],
    ids=["ctrl+c", "SIGTERM", "q"],
)
def test_stopping_a_live_run_says_where_the_finished_rungs_are(stop, code, said, tmp_path):
    """Ctrl-C in the middle of a run (the key, which the app reads from its raw terminal, or a
    stop signal sent to the app) kills the running worker and exits 130; ``q`` stops the same
    and exits 0.  Either way, once the terminal is back, one line says where the finished rungs
    are kept, and they are there."""
    tmux = Tmux(  # a timeout far beyond the test: only the stop can end the hanging worker
        f"{BINARY} --scenarios-dir {FAULTY} --scenario raises --scenario hangs --size 8 "
        f"--repeats 2 --min-time 0.001 --no-probes --timeout 3600 --out {tmp_path}",
        (100, 30),
    )
    try:
        worker = wait_until(lambda: _worker_pid(tmp_path, "hangs"), what="the hangs worker")
        if stop.startswith("SIG"):
            os.kill(_parent(worker), getattr(signal, stop))
        else:
            tmux.keys(stop)
        tmux.wait_for("EXITED")
        screen = tmux.screen(joined=True)
    finally:
        tmux.close()
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert f"EXITED {code}" in screen, screen
    where = f"the finished rungs are kept in {run_dir} (open it with `overhead-tui open {run_dir}`)"
    assert f"overhead-tui: {said}" in screen and where in screen, screen
    assert wait_gone(worker), "the hanging worker outlived the app"
    summary = RunSummary.load(run_dir)
    assert not summary.finished
    assert summary.scenario("raises").status == "error"  # the finished rung is kept
