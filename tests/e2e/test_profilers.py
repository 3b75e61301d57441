"""Profiler backends end to end: real runs where the tools exist, fakes for failure paths."""

from __future__ import annotations

import math
import os
import signal
import stat
import subprocess
import sys
import time

import pytest

from overhead_tui.plugins.scenarios import discover
from overhead_tui.profilers import perf, pyspy
from overhead_tui.profilers.registry import detect
from overhead_tui.worker.protocol import worker_task
from tests.conftest import FAULTY, run_cli, wait_until

PYTHON = sys.executable


def _spec(name, n=16, duration=0.3, folder=None):
    spec = next(s for s in discover([folder] if folder else []) if s.name == name)
    return worker_task("profile", spec, n=n, dtype="float64", seed=0, duration_s=duration)


def _fake(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


FAKE_PYSPY = """
out=""; while [ "$1" != "--" ]; do [ "$1" = "-o" ] && out=$2; shift; done; shift
"$@"
echo 'profile_loop (worker.py:1);kernel (k.py:2) 10' > "$out"
exit ${FAKE_EXIT:-0}
"""


def _leftovers(tmp_path):
    """Processes whose command line names ``tmp_path`` (the fake profiler and its children)."""
    found = subprocess.run(["pgrep", "-f", f"{tmp_path}"], capture_output=True, text=True)
    return found.stdout.strip()


def test_profiler_that_hangs_is_killed_with_its_process_group(tmp_path):
    fake = _fake(tmp_path, "perf", "sleep 300 & sleep 300\n")
    started = time.monotonic()
    result = perf.profile(fake, PYTHON, _spec("python_naive"), timeout_s=2).to_json()
    assert result["status"] == "failed" and "timed out" in result["reason"]
    # killed at the timeout, not waited for: far sooner than the fake's 300 s sleeps end
    assert time.monotonic() - started < 150
    wait_until(lambda: not _leftovers(tmp_path), what="the fake profiler's group ending")


def test_profiler_that_crashes_without_running_the_worker(tmp_path):
    fake = _fake(tmp_path, "perf", "echo 'perf: segmentation fault' >&2; exit 139\n")
    result = perf.profile(fake, PYTHON, _spec("python_naive"), timeout_s=30).to_json()
    assert result["status"] == "failed" and "did not finish" in result["reason"]


def test_nonzero_profiler_exit_with_a_valid_file_is_ok(tmp_path):
    fake = _fake(tmp_path, "py-spy", FAKE_PYSPY)
    os.environ["FAKE_EXIT"] = "1"
    try:
        result = pyspy.profile(fake, PYTHON, _spec("python_naive"), timeout_s=60).to_json()
    finally:
        del os.environ["FAKE_EXIT"]
    assert result["status"] == "ok" and result["samples"] == 10


def test_zero_profiler_exit_with_a_failed_scenario_is_failed(tmp_path):
    fake = _fake(tmp_path, "py-spy", FAKE_PYSPY)
    result = pyspy.profile(fake, PYTHON, _spec("raises", folder=FAULTY), timeout_s=60).to_json()
    assert result["status"] == "failed"
    assert "kernel exploded on purpose" in result["reason"]


def _profile_numpy_matmul(tmp_path, size, *outputs, env=None):
    """``profile numpy_matmul`` at ``size`` for 0.5 s with perf and py-spy, the profile saved
    to p.json (and to ``outputs``, export options)."""
    return run_cli(
        "profile",
        "numpy_matmul",
        "--size",
        size,
        "--duration",
        "0.5",
        "--backend",
        "perf",
        "--backend",
        "pyspy",
        "--json",
        tmp_path / "p.json",
        *outputs,
        env=env,
    )


def test_doctor_reports_missing_backends_with_the_fix(cli, tmp_path):
    # nothing on PATH: perf and valgrind disappear
    proc = cli("doctor", env={"PATH": str(tmp_path)})
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert any(x.startswith("perf") and "unavailable" in x for x in lines)
    assert any("fix: apt-get install valgrind" in x for x in lines)
    assert any(x.startswith("pyspy") and " ok " in x for x in lines)  # the venv's own py-spy


def test_profile_command_with_a_missing_backend_still_runs_the_others(tmp_path):
    proc = _profile_numpy_matmul(tmp_path, 64, env={"PATH": str(tmp_path)})
    assert "perf: unavailable" in proc.stdout
    assert "pyspy: ok" in proc.stdout, proc.stdout + proc.stderr


CAPABILITIES = detect()
needs = {
    name: pytest.mark.skipif(not cap.ok, reason=f"{name}: {cap.reason}")
    for name, cap in CAPABILITIES.items()
}


@needs["perf"]
@needs["pyspy"]
def test_real_profile_of_numpy_matmul(tmp_path):
    proc = _profile_numpy_matmul(
        tmp_path,
        128,
        "--speedscope",
        tmp_path / "p.speedscope.json",
        "--collapsed",
        tmp_path / "p.txt",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import json

    profile = json.loads((tmp_path / "p.json").read_text())
    # measured and well-formed; how large the kernel's share is depends on the machine and
    # its load (README "Profilers" gives the reference machine's numbers), so it is not tested
    perf_part, pyspy_part = profile["backends"]["perf"], profile["backends"]["pyspy"]
    assert perf_part["status"] == "ok" and pyspy_part["status"] == "ok"
    layers = perf_part["layers"]
    assert "dense_kernel" in layers  # perf saw the BLAS kernel at all
    assert all(0 <= share <= 1 for share in layers.values()), layers
    assert math.fsum(layers.values()) == pytest.approx(1.0)  # fractions of all samples
    assert 0 <= pyspy_part["native_fraction"] <= 1
    for part in (perf_part, pyspy_part):  # profiled time per call / unprofiled: both > 0
        assert math.isfinite(part["slowdown"]) and part["slowdown"] > 0
    doc = json.loads((tmp_path / "p.speedscope.json").read_text())
    assert doc["profiles"][0]["type"] == "sampled"
    assert (tmp_path / "p.txt").read_text().endswith("\n")


@needs["callgrind"]
def test_real_callgrind_instructions_per_fma(cli, tmp_path):
    proc = cli(
        "profile",
        "python_hoisted",
        "--size",
        "12",
        "--backend",
        "callgrind",
        "--json",
        tmp_path / "p.json",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import json

    part = json.loads((tmp_path / "p.json").read_text())["backends"]["callgrind"]
    assert part["n"] == 12 and 100 < part["instructions_per_fma"] < 5000
    assert part["floats_per_fma"] == pytest.approx(2.0, rel=0.05)


def test_a_scenario_that_hangs_unprofiled_is_not_profiled(cli):
    proc = cli(
        "profile",
        "hangs",
        "--scenarios-dir",
        FAULTY,
        "--timeout",
        "2",
        "--duration",
        "0.3",
        "--backend",
        "perf",
        "--backend",
        "pyspy",
    )
    assert proc.returncode == 1
    # every backend this machine has says why it did not profile; a missing one says so
    usable = [name for name in ("perf", "pyspy") if CAPABILITIES[name].ok]
    assert proc.stdout.count("not profiled: the scenario did not finish unprofiled") == len(usable)
    assert "pyspy" in usable  # the project installs py-spy itself


def test_a_child_that_escaped_the_process_group_does_not_hang_the_run(tmp_path, monkeypatch):
    # the fake profiler starts a grandchild in a new session that keeps the output pipe open;
    # the pipes are drained for a short while only (shorter here: the behaviour is the same)
    monkeypatch.setattr("overhead_tui.engine.spawn.DRAIN_S", 0.5)
    pid_file = tmp_path / "escaped.pid"
    fake = _fake(
        tmp_path, "perf", f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 600' &\nsleep 300\n"
    )
    started = time.monotonic()
    try:
        result = perf.profile(fake, PYTHON, _spec("python_naive"), timeout_s=2).to_json()
        assert result["status"] == "failed" and "timed out" in result["reason"]
        # not held until the escaped child closes the pipe (600 s) or the fake ends (300 s)
        assert time.monotonic() - started < 150
    finally:
        escaped = wait_until(lambda: pid_file.exists() and pid_file.read_text().strip())
        os.kill(int(escaped), signal.SIGKILL)  # out of the group by design: ended here


def test_profile_takes_a_dtype_the_scenario_computes_and_refuses_one_it_does_not(cli, monkeypatch):
    for args, said in (
        (["python_naive", "--dtype", "int8"], "python_naive does not support int8 (it supports "
         "float64, float32); fix: --dtype float64 or leave --dtype out"),
        (["c_avx512_dot", "--dtype", "float64"], "c_avx512_dot does not support float64"),
    ):  # fmt: skip
        proc = cli("profile", *args, "--size", "16", "--backend", "pyspy", "--duration", "0.2")
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and said in proc.stderr, proc.stderr
    # without --dtype, a lower-precision rung is profiled in the first dtype it computes
    from overhead_tui.cli import build_parser
    from overhead_tui.commands import profile

    class Profiled(Exception):
        pass

    def profiled(spec, n, dtype, *rest, **options):
        raise Profiled(dtype)

    monkeypatch.setattr(profile, "profile_scenario", profiled)
    args = build_parser().parse_args(["profile", "c_avx512_dot", "--backend", "perf"])
    with pytest.raises(Profiled, match="bfloat16"):
        profile.run(args)


def test_stack_exports_without_py_spy_among_the_backends_are_refused(cli, tmp_path):
    out = tmp_path / "s.json"
    proc = cli("profile", "python_naive", "--backend", "perf", "--speedscope", out)
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr == (
        "overhead-tui: error: --speedscope writes py-spy's samples, and py-spy is not among the "
        "backends; fix: add --backend pyspy\n"
    )


@needs["scalene"]
def test_real_scalene_gives_per_line_shares_on_python_naive(cli, tmp_path):
    """The real Scalene on a pure-Python rung, from the CLI: ok, and the kernel's inner line
    carries Python time (its target was a file the worker's move removed: it recorded nothing);
    nothing is left in the temp folder, whatever Scalene did."""
    import json

    out = tmp_path / "p.json"
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = cli("profile", "python_naive", "--size", "24", "--duration", "0.5",
               "--backend", "scalene", "--json", out, env={"TMPDIR": str(temp)})  # fmt: skip
    assert list(temp.iterdir()) == []
    assert proc.returncode == 0, proc.stdout + proc.stderr
    part = json.loads(out.read_text())["backends"]["scalene"]
    assert part["status"] == "ok", part
    inner = [x for x in part["lines"] if "s += a[i][k] * b[k][j]" in x["line"]]
    assert inner and inner[0]["python"] > 0, part["lines"]
    assert "cannot see" not in proc.stdout


@needs["scalene"]
@pytest.mark.parametrize(
    # python_hoisted's lines are python_naive's kind (the CLI test above): list loops only
    "name",
    ["python_zip_sum", "python_array_module", "numpy_scalar_loop"],
)
def test_real_scalene_records_lines_on_each_kind_of_interpreted_rung(name):
    from overhead_tui.profilers import scalene

    spec = next(s for s in discover([]) if s.name == name)
    worker = worker_task("profile", spec, n=16, dtype="float64", seed=0, duration_s=0.3)
    part = scalene.profile(PYTHON, worker, spec, timeout_s=120)
    assert part.ok, part.reason
    assert part.lines and any(x.python > 0 for x in part.lines), part.lines


def test_scalene_with_its_target_missing_fails_naming_it(monkeypatch):
    """A worker entry that is not there is a failure naming the module, not 'no time'."""
    from overhead_tui.profilers import scalene

    monkeypatch.setattr(scalene, "WORKER_ENTRY", "overhead_tui.engine.worker")
    spec = next(s for s in discover([]) if s.name == "python_naive")
    worker = worker_task("profile", spec, n=16, dtype="float64", seed=0, duration_s=0.3)
    part = scalene.profile(PYTHON, worker, spec, timeout_s=120)
    assert part.status == "failed"
    assert part.reason.startswith("overhead_tui.engine.worker is not in"), part.reason


def test_profile_with_no_backend_that_can_run_is_one_line_and_runs_nothing(cli, tmp_path):
    """Nothing on PATH and only perf and callgrind asked for: no profiler can record here, so
    the command says which and why before running the rung (it ran and exited 0)."""
    proc = cli(
        "profile", "numpy_matmul", "--size", "16", "--backend", "perf", "--backend",
        "callgrind", env={"PATH": str(tmp_path)},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "no profiler can run here" in proc.stderr
    assert "perf:" in proc.stderr and "callgrind:" in proc.stderr and "fix:" in proc.stderr
    assert "profiling numpy_matmul" not in proc.stderr


@needs["pyspy"]
def test_run_with_profile_says_what_each_profile_recorded(cli, tmp_path):
    """``run --profile pyspy``: each profiled rung gets a line on stderr naming what the
    backend recorded (it printed nothing), and the profile is in the run's summary."""
    from overhead_tui.summary.records import RunSummary
    from tests.conftest import FAST

    proc = cli("run", "--scenario", "python_naive", *FAST, "--profile", "pyspy",
               "--out", tmp_path / "run")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [line] = [x for x in proc.stderr.splitlines() if x.startswith("profiled python_naive: ")]
    assert "pyspy ok" in line
    saved = RunSummary.load(tmp_path / "run" / "summary.json").scenario("python_naive")
    assert saved.profile is not None and saved.profile.backends["pyspy"].status == "ok"
