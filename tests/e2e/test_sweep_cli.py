"""``overhead-tui sweep`` end to end: real workers on tiny fixture scenarios."""

from __future__ import annotations

import contextlib
import json
import signal

import pytest

from overhead_tui.cli import main
from overhead_tui.summary.probes import ProbeResult
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAULTY, FIXTURES, run_cli, start_cli, wait_gone, wait_until

FAST_DIR = FIXTURES / "fast"
QUICK = ["--repeats", "2", "--min-time", "0.002", "--no-probes"]
"""Options that keep a point well under a second (and never measure the probes)."""
FAST_PAIR = ("--scenarios-dir", FAST_DIR, "--scenario", "fast_python", "--scenario", "fast_dense")
"""The two fast fixtures: the interpreter's flat line and a dense kernel."""
FAST_DENSE = ("--scenarios-dir", FAST_DIR, "--scenario", "fast_dense")
"""The fast dense kernel alone."""
WRONG_FROM_32 = '''"""Right below n = 32, wrong from n = 32."""

NAME = "wrong_big"
TITLE = "Wrong from n = 32"
RUNG = 150
LAYERS = ("other",)
REMOVES = ()
DEFAULT_SIZE = 8
MAX_SIZE = 64
DTYPES = ("float64", "float32")


def setup(a, b):
    return a, b


def kernel(a, b):
    c = a @ b
    if a.shape[0] >= 32:
        c[0, 0] += 1.0
    return c


def to_numpy(c):
    return c
'''


def _sweep(out, sizes, *args, code=0):
    """``overhead-tui sweep ARGS --sizes SIZES`` (QUICK) into ``out``: it exits with ``code``.
    Returns (the process, the saved summary, validated against the schema)."""
    proc = run_cli("sweep", *args, "--sizes", sizes, *QUICK, "--out", out)
    assert proc.returncode == code, proc.stderr
    return proc, RunSummary.load(out)


def test_a_short_sweep_saves_every_point(tmp_path):
    out = tmp_path / "sweep"
    proc, summary = _sweep(out, "16,8", *FAST_PAIR, "--budget", "60")
    sweep = summary.sweep.to_json()
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


def test_budget_and_maximum_size_stop_a_scenario_early(tmp_path):
    # 128 is above both fixtures' MAX_SIZE of 64; with a budget of 0.01 s each first size
    # runs, nothing after it fits
    proc, summary = _sweep(tmp_path / "sweep", "8,16,128", *FAST_PAIR, "--budget", "0.01")
    sweep = summary.sweep.to_json()
    assert [(p["scenario"], p["n"]) for p in sweep["points"]] == [
        ("fast_python", 8),
        ("fast_dense", 8),
    ]
    assert sweep["stopped"] == {"fast_python": "budget", "fast_dense": "budget"}
    assert "fast_python: stopped (budget)" in proc.stderr

    _, summary = _sweep(tmp_path / "sweep2", "8,128", *FAST_DENSE)
    sweep = summary.sweep.to_json()
    assert [p["n"] for p in sweep["points"]] == [8]
    assert sweep["stopped"] == {"fast_dense": "max_size"}


def test_a_failed_point_ends_that_scenario_and_exits_1(tmp_path):
    raises = ("--scenarios-dir", FAULTY, "--scenario", "raises")
    proc, summary = _sweep(tmp_path / "sweep", "8,16", *raises, *FAST_DENSE, code=1)
    sweep = summary.sweep.to_json()
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
        (
            ["--sizes", "128,256"],
            "overhead-tui: error: fast_dense's maximum is 64; every size in --sizes is larger; "
            "fix: add a size of 64 or less to --sizes or drop --scenario fast_dense",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, tmp_path, args, message):
    proc = cli("sweep", *FAST_DENSE, *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_sizes_above_one_scenarios_maximum_stop_only_that_one(tmp_path):
    """python_naive stops at its maximum (512); numpy_matmul goes on, as the README says."""
    chosen = ["--scenario", "python_naive", "--scenario", "numpy_matmul"]
    _, summary = _sweep(tmp_path / "sweep", "8,600", *chosen, "--budget", "60")
    sweep = summary.sweep.to_json()
    assert [(p["scenario"], p["n"]) for p in sweep["points"]] == [
        ("python_naive", 8),
        ("numpy_matmul", 8),
        ("numpy_matmul", 600),
    ]
    assert sweep["stopped"] == {"python_naive": "max_size"}
    # no size fits python_naive at all: one line naming --sizes, before anything runs
    proc = run_cli("sweep", *chosen, "--sizes", "600,1024", *QUICK, "--out", tmp_path / "none")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("overhead-tui: error: python_naive's maximum is 512; ")
    assert "add a size of 512 or less to --sizes" in proc.stderr
    assert not (tmp_path / "none").exists()


def test_a_scenario_that_failed_is_never_shown_ok(tmp_path):
    custom = tmp_path / "custom"
    custom.mkdir()
    (custom / "wrong_big.py").write_text(WRONG_FROM_32)
    wrong_big = ("--scenarios-dir", custom, "--scenario", "wrong_big")
    _, summary = _sweep(tmp_path / "sweep", "8,16,32,64", *wrong_big, *FAST_DENSE, code=1)
    wrong = summary.scenario("wrong_big")
    assert (wrong.status, wrong.n) == ("invalid", 32)
    assert "off by 1" in wrong.error and wrong.median_s is None
    points = [
        (p["n"], p["status"])
        for p in summary.sweep.to_json()["points"]
        if p["scenario"] == "wrong_big"
    ]
    assert points == [(8, "ok"), (16, "ok"), (32, "invalid")]
    assert summary.scenario("fast_dense").n == 64


def test_the_probes_give_the_machine_limits_and_are_cached(tmp_path, monkeypatch, capsys):
    """A sweep loads the probes like ``run``: measured (with run's messages) when the cache
    is missing, from the cache afterwards; ``--no-probes`` skips them."""
    monkeypatch.setattr(
        "overhead_tui.engine.probe_runs.cache_path", lambda: tmp_path / "probes.json"
    )
    measured = []

    def measure(spec, python, cancel=None):  # instant, fixed values instead of 40 s of measuring
        measured.append(spec.name)
        value = {"clock": 3.0, "stream_triad": 20.0, "simd_fma": 100.0}.get(spec.name, 1.0)
        return ProbeResult(spec.name, spec.title, spec.unit, spec.layer, value=value)

    monkeypatch.setattr("overhead_tui.engine.probe_runs.measure_probe", measure)
    base = ["sweep", "--scenarios-dir", str(FAST_DIR), "--scenario", "fast_dense"]
    quick = [a for a in QUICK if a != "--no-probes"]
    assert main([*base, "--sizes", "8,16", *quick, "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "probe 1/" in err and "once per machine and interpreter" in err
    summary = RunSummary.load(tmp_path / "a")
    assert summary.settings.probes and summary.probes["clock"].value == 3.0
    assert summary.machine.clock_ghz["measured"] == 3.0
    assert summary.machine.bandwidth_gbs["all_cores"] == 20.0
    assert summary.machine.peak_gflops["float64"].measured == 100.0
    dense = summary.scenario("fast_dense")
    assert dense.arithmetic_intensity == pytest.approx(2 * 16 / 24)
    assert dense.pct_peak == pytest.approx(dense.gflops / 100.0)

    count = len(measured)
    assert main([*base, "--sizes", "8", *quick, "--out", str(tmp_path / "b")]) == 0
    assert "probe 1/" not in capsys.readouterr().err and len(measured) == count
    assert RunSummary.load(tmp_path / "b").machine.clock_ghz["measured"] == 3.0

    assert main([*base, "--sizes", "8", *QUICK, "--out", str(tmp_path / "c")]) == 0
    skipped = RunSummary.load(tmp_path / "c")
    assert not skipped.settings.probes and skipped.probes == {}
    assert skipped.machine.clock_ghz["measured"] is None


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
    proc = start_cli(
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
    )
    pid = _wait_for_worker(out / "points" / "hangs_late-8" / "log.jsonl")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    summary = RunSummary.load(out)
    sweep = summary.sweep.to_json()
    assert [(p["scenario"], p["n"]) for p in sweep["points"]] == [
        ("fast_dense", 8),
        ("fast_dense", 16),
    ]
    assert sweep["stopped"] == {"hangs_late": "cancelled"}
    assert not summary.finished
    assert wait_gone(pid), "the hanging worker survived Ctrl-C"


def _wait_for_worker(log, timeout=120.0):
    """The pid of the point's worker once it reported its environment (past its start-up)."""

    def pid():
        events = []
        for line in log.read_text().splitlines() if log.exists() else []:
            with contextlib.suppress(json.JSONDecodeError):  # a line being written
                events.append(json.loads(line))
        if any(e.get("kind") == "environment" for e in events):
            return next(e["pid"] for e in events if e.get("kind") == "started" and "pid" in e)
        return None

    return wait_until(pid, timeout, f"a worker starting ({log})")
