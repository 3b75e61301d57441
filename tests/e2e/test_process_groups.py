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


def test_every_worker_goes_through_the_one_child_primitive(tmp_path, monkeypatch):
    """A rung's workers (pooled), a probe's processes and a profiler's baseline: every
    process started with ``-m overhead_tui.worker.main`` was started by ``Child.start``."""
    from overhead_tui.engine import spawn
    from overhead_tui.engine.probe_runs import discover_probes, measure_probe
    from overhead_tui.engine.runner import Runner
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.profilers.profile import profile_scenario
    from overhead_tui.summary.records import Settings

    popened, through_child = [], []
    real_popen, real_start = subprocess.Popen, spawn.Child.start

    def popen(argv, *args, **kwargs):
        if "overhead_tui.worker" in argv:
            popened.append(argv[-1])
        return real_popen(argv, *args, **kwargs)

    def start(self):
        through_child.append(self.argv[-1])
        return real_start(self)

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(spawn.Child, "start", start)
    spec = next(s for s in discover() if s.name == "python_naive")
    runner = Runner([spec], Settings(size=8, repeats=3, min_sample_s=0.001), tmp_path / "run")
    for _ in runner.events():
        pass
    probe = next(p for p in discover_probes() if p.name == "dispatch")
    measure_probe(probe, sys.executable, processes=2, repeats=2, min_sample_s=0.001)
    profile_scenario(spec, 8, "float64", backends=(), duration_s=0.05)
    assert len(popened) >= 4 and popened == through_child
