"""A worker that ends without its result under Scalene is run again, and still reported as
failed when it keeps doing so; a timeout is not repeated."""

from __future__ import annotations

from overhead_tui.engine.spawn import CommandResult
from overhead_tui.plugins.scenarios import discover
from overhead_tui.profilers import scalene
from overhead_tui.worker.protocol import worker_task


def _profile(monkeypatch, result):
    calls = []

    def run_command(argv, timeout_s, env, cancel):
        calls.append(argv)
        return result

    monkeypatch.setattr(scalene, "run_command", run_command)
    spec = next(s for s in discover([]) if s.name == "python_naive")
    task = worker_task("profile", spec, n=8, dtype="float64", seed=0, duration_s=0.1)
    return scalene.profile("python3", task, spec, timeout_s=5), calls


def test_a_worker_that_died_under_scalene_is_run_again_then_reported(monkeypatch):
    died = CommandResult(returncode=-11, timed_out=False, stdout="", stderr="Segmentation fault")
    part, calls = _profile(monkeypatch, died)
    assert len(calls) == scalene.RETRIES + 1
    assert part.status == "failed" and "did not finish (Segmentation fault)" in part.reason


def test_a_timeout_is_reported_at_once(monkeypatch):
    slow = CommandResult(returncode=None, timed_out=True, stdout="", stderr="")
    part, calls = _profile(monkeypatch, slow)
    assert len(calls) == 1
    assert part.status == "failed" and "timed out" in part.reason
