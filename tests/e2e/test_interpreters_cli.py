"""``overhead-tui interpreters`` end to end at tiny sizes, ``compare`` between two of its run
directories, and ``open`` of a combined summary."""

from __future__ import annotations

import json
import sys

from overhead_tui.summary.interpreters import InterpretersSummary, is_interpreters_summary
from tests.conftest import FAST, FIXTURES, RECORDED_SUMMARY

RECORDED_INTERPRETERS = FIXTURES / "interpreters_summary.json"


def test_two_interpreters_then_compare_between_their_run_dirs(tmp_path, cli):
    """The second interpreter is this one again (no other Python has numpy without
    provisioning, which needs the network): the mechanism is the same."""
    combined_path = tmp_path / "combined.json"
    result = cli(
        "interpreters",
        "--python",
        sys.executable,
        "--no-provision",
        "--scenario",
        "python_naive",
        "--scenario",
        "numpy_matmul",
        *FAST,
        "--out",
        tmp_path / "runs",
        "--json",
        combined_path,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("| rung |")
    combined = InterpretersSummary.load(combined_path)
    run_a, run_b = (entry.run_dir for entry in combined.interpreters)
    assert run_a and run_b and run_a != run_b
    compared = cli("compare", run_a, run_b)
    assert compared.returncode == 0, compared.stderr
    assert "python_naive" in compared.stdout and "numpy_matmul" in compared.stdout


def test_open_recognises_a_combined_summary(tmp_path, cli):
    assert is_interpreters_summary(RECORDED_INTERPRETERS)
    assert not is_interpreters_summary(RECORDED_SUMMARY)
    assert not is_interpreters_summary(tmp_path)  # a folder: a run directory, not combined
    broken = json.loads(RECORDED_INTERPRETERS.read_text())
    del broken["interpreters"][0]["python"]["version"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    result = cli("open", path)  # read as a combined summary: its schema's one line
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "overhead-tui: error: invalid interpreters summary at interpreters.0.python: "
        "'version' is a required property"
    ]
    result = cli("open", RECORDED_INTERPRETERS)  # valid, but no terminal here
    assert result.returncode == 2 and "needs a terminal" in result.stderr


def test_app_needs_a_terminal_before_anything_runs(tmp_path, cli):
    result = cli("interpreters", "--python", sys.executable, "--app", *FAST, "--out", tmp_path)
    assert result.returncode == 2
    assert "--app needs a terminal" in result.stderr
    assert not list(tmp_path.iterdir())


def test_an_interpreter_older_than_the_workers_need_is_refused_before_anything_runs(tmp_path, cli):
    """``--python 2.7`` used to measure the baseline (and its probes) first, then try to make a
    virtual environment and blame a missing ``venv`` module: it is bad input, exit 2 at once."""
    old = tmp_path / "python2.7"
    facts = {
        "implementation": "CPython",
        "version": "2.7.18",
        "executable": str(old),
        "free_threaded": False,
        "jit": None,
    }
    old.write_text(f"#!/bin/sh\necho 'overhead-tui-describe {json.dumps(facts)}'\n")
    old.chmod(0o755)
    runs = tmp_path / "runs"
    result = cli("interpreters", "--python", old, *FAST, "--out", runs)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "CPython 2.7.18" in result.stderr and "3.11 or newer" in result.stderr
    assert not runs.exists() or not list(runs.iterdir())


def test_a_program_that_is_not_python_is_refused_before_any_ladder(tmp_path, cli):
    runs = tmp_path / "runs"
    result = cli("interpreters", "--python", "/bin/echo", *FAST, "--out", runs)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "/bin/echo" in lines[0] and "fix:" in lines[0]
    assert "Traceback" not in result.stderr
    assert not list(runs.glob("*/summary.json"))  # nothing was measured first


def test_a_python_used_as_it_is_that_lacks_numpy_is_refused_before_anything_runs(tmp_path, cli):
    """With --no-provision the interpreter's lack is known up front: one line, exit 2, no run
    (it ran the baseline first, then exited 1 with the path said twice)."""
    import subprocess

    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True, timeout=120)
    python = bare / "bin" / "python"
    result = cli("interpreters", "--python", python, "--no-provision", "--scenario",
                 "python_naive", *FAST, "--out", tmp_path / "runs")  # fmt: skip
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"overhead-tui: error: --python {python} (CPython ")
    assert "cannot import numpy" in line and "fix:" in line
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
