"""``overhead-tui sweep`` end to end: real workers on tiny fixture scenarios."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from overhead_tui.model import RunSummary
from tests.conftest import FAULTY, FIXTURES, wait_gone

FAST_DIR = FIXTURES / "fast"
QUICK = ["--repeats", "2", "--min-time", "0.002"]
"""Options that keep a point well under a second."""


def test_a_short_sweep_saves_every_point(cli, tmp_path):
    out = tmp_path / "sweep"
    proc = cli(
        "sweep",
        "--scenarios-dir",
        FAST_DIR,
        "--scenario",
        "fast_python",
        "--scenario",
        "fast_dense",
        "--sizes",
        "16,8",
        "--budget",
        "60",
        *QUICK,
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(out)  # validated against the schema
    sweep = summary.sweep
    assert sweep is not None and sweep["sizes"] == [8, 16] and sweep["budget_s"] == 60
    assert sweep["dtype"] == "float64" and sweep["stopped"] == {}
    got = [(p["scenario"], p["n"], p["status"]) for p in sweep["points"]]
    assert got == [
        ("fast_python", 8, "ok"),
        ("fast_python", 16, "ok"),
        ("fast_dense", 8, "ok"),
        ("fast_dense", 16, "ok"),
    ]
    for point in sweep["points"]:
        assert point["gflops"] > 0 and point["median_s"] > 0 and len(point["samples_s"]) == 2
        assert point["gflops"] == pytest.approx(2 * point["n"] ** 3 / point["median_s"] / 1e9)
    # the ladder part shows each scenario at its largest measured n, × dense included
    assert [(s.name, s.n) for s in summary.scenarios] == [("fast_python", 16), ("fast_dense", 16)]
    assert summary.scenario("fast_dense").vs_dense == pytest.approx(1.0)
    assert summary.finished and not summary.settings.probes
    # one worker per point, each with its own run folder
    assert sorted(p.name for p in (out / "points").iterdir()) == [
        "fast_dense-16",
        "fast_dense-8",
        "fast_python-16",
        "fast_python-8",
    ]
    # one progress line per point on stderr, the table on stdout
    assert proc.stderr.count("ok  ") == 4, proc.stderr
    assert "[1/2] fast_python n=8: ok" in proc.stderr
    header, python_row, dense_row = proc.stdout.splitlines()[:3]
    assert header.split() == ["GFLOP/s", "n=8", "n=16", "stopped"]
    assert python_row.startswith("fast_python") and dense_row.startswith("fast_dense")


def test_budget_and_maximum_size_stop_a_scenario_early(cli, tmp_path):
    out = tmp_path / "sweep"
    proc = cli(
        "sweep",
        "--scenarios-dir",
        FAST_DIR,
        "--scenario",
        "fast_python",
        "--scenario",
        "fast_dense",
        "--sizes",
        "8,16,128",  # 128 is above both fixtures' MAX_SIZE of 64
        "--budget",
        "0.01",  # each first size runs, nothing after it fits
        *QUICK,
        "--out",
        out,
    )
    assert proc.returncode == 0, proc.stderr
    sweep = RunSummary.load(out).sweep
    assert [(p["scenario"], p["n"]) for p in sweep["points"]] == [
        ("fast_python", 8),
        ("fast_dense", 8),
    ]
    assert sweep["stopped"] == {"fast_python": "budget", "fast_dense": "budget"}
    assert "fast_python: stopped (budget)" in proc.stderr

    out2 = tmp_path / "sweep2"
    proc = cli(
        "sweep",
        "--scenarios-dir",
        FAST_DIR,
        "--scenario",
        "fast_dense",
        "--sizes",
        "8,128",
        *QUICK,
        "--out",
        out2,
    )
    assert proc.returncode == 0, proc.stderr
    sweep = RunSummary.load(out2).sweep
    assert [p["n"] for p in sweep["points"]] == [8]
    assert sweep["stopped"] == {"fast_dense": "max_size"}


def test_a_failed_point_ends_that_scenario_and_exits_1(cli, tmp_path):
    out = tmp_path / "sweep"
    proc = cli(
        "sweep",
        "--scenarios-dir",
        FAULTY,
        "--scenarios-dir",
        FAST_DIR,
        "--scenario",
        "raises",
        "--scenario",
        "fast_dense",
        "--sizes",
        "8,16",
        *QUICK,
        "--out",
        out,
    )
    assert proc.returncode == 1, proc.stderr
    sweep = RunSummary.load(out).sweep
    got = [(p["scenario"], p["n"], p["status"]) for p in sweep["points"]]
    assert got == [("raises", 8, "error"), ("fast_dense", 8, "ok"), ("fast_dense", 16, "ok")]
    assert sweep["stopped"] == {"raises": "error"}
    assert "raises at n=8: error" in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sizes", "8,x"], "argument --sizes: 'x' is not a whole number"),
        (["--sizes", "8,,16"], "argument --sizes: empty item"),
        (["--sizes", "0"], "argument --sizes: 0 is below 1"),
        (["--budget", "0"], "argument --budget: 0.0 must be above 0"),
        (["--scenario", "nope"], "nope"),
        (["--sizes", "128"], "above fast_dense's maximum of 64"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, message):
    proc = cli("sweep", "--scenarios-dir", FAST_DIR, "--scenario", "fast_dense", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_app_without_a_terminal_fails_before_measuring(cli, tmp_path):
    proc = cli("sweep", "--app", "--out", tmp_path / "sweep")
    assert proc.returncode == 2 and "--app needs a terminal" in proc.stderr
    assert not (tmp_path / "sweep").exists()


def test_ctrl_c_keeps_finished_points(tmp_path):
    out = tmp_path / "sweep"
    late = tmp_path / "late"  # a hanging rung swept after fast_dense (rung 202)
    late.mkdir()
    source = (FAULTY / "hangs.py").read_text()
    source = source.replace('NAME = "hangs"', 'NAME = "hangs_late"').replace(
        "RUNG = 102", "RUNG = 300"
    )
    (late / "hangs_late.py").write_text(source)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "overhead_tui",
            "sweep",
            "--scenarios-dir",
            FAST_DIR,
            "--scenarios-dir",
            late,
            "--scenario",
            "fast_dense",
            "--scenario",
            "hangs_late",
            "--sizes",
            "8,16",
            *QUICK,
            "--out",
            out,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    pid = _wait_for_worker(out / "points" / "hangs_late-8" / "events.jsonl")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    summary = RunSummary.load(out)
    sweep = summary.sweep
    assert [(p["scenario"], p["n"]) for p in sweep["points"]] == [
        ("fast_dense", 8),
        ("fast_dense", 16),
    ]
    assert sweep["stopped"] == {"hangs_late": "cancelled"}
    assert not summary.finished
    assert wait_gone(pid), "the hanging worker survived Ctrl-C"


def _wait_for_worker(log, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists():
            for line in log.read_text().splitlines():
                event = json.loads(line)
                if event.get("event") == "started" and "pid" in event:
                    time.sleep(0.3)
                    return event["pid"]
        time.sleep(0.05)
    raise AssertionError(f"no worker started ({log})")
