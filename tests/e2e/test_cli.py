"""The command line in a subprocess: faults, bad input, the full ladder at a tiny size."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary.records import RunSummary
from tests.conftest import (
    FAST,
    FAULTY,
    FIXTURES,
    RECORDED_SUMMARY,
    RECORDED_SUMMARY_V3,
    seed_probe_cache,
    start_cli,
    wait_gone,
    wait_until,
)

FAULTS = {
    "raises": ("error", "RuntimeError: kernel exploded on purpose"),
    "hangs": ("timeout", "no result after 10 s"),
    "aborts": ("crashed", "SIGABRT"),
    "segfaults": ("crashed", "SIGSEGV"),
    "exits": ("crashed", "exited with code 7"),
    "wrong": ("invalid", "element (1, 2) is off by 0.001"),
    "out_of_memory": ("error", "out of memory"),
    "setup_fails": ("error", "KeyError"),
    "needs_missing": ("skipped", "pip install not_a_real_module_xyz"),
    "noisy": ("ok", None),
    "requires_unused": ("skipped", "pip install not_a_real_module_abc"),
    "floods_stderr": ("error", "the worker wrote a file past its limit of 3.81 MiB"),
}


def test_every_fault_is_reported_and_the_run_goes_on(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("OVERHEAD_TUI_WORKER_FILE_LIMIT", str(4_000_000))  # floods_stderr's cap
    args = [a for name in FAULTS for a in ("--scenario", name)]
    proc = cli(
        "run",
        "--scenarios-dir",
        FAULTY,
        *args,
        *FAST,
        # every scenario's limit: long enough for a slow start on a loaded machine, and the
        # time the hanging one costs the test
        "--timeout",
        "10",
        "--out",
        tmp_path / "run",
        "--json",
        tmp_path / "s.json",
    )
    assert proc.returncode == 1, proc.stderr
    summary = RunSummary.load(tmp_path / "s.json")
    by_name = {s.name: s for s in summary.scenarios}
    for name, (status, text) in FAULTS.items():
        assert by_name[name].status == status, (name, by_name[name].error)
        if text:
            assert text in by_name[name].error
        assert (by_name[name].median_s is None) == (status != "ok")
    # prints to fd 1 from Python and C did not corrupt the event channel
    assert by_name["noisy"].samples_s and "raw write" not in proc.stdout
    assert summary.finished
    log = (tmp_path / "run" / "log.jsonl").read_text().splitlines()
    assert all(json.loads(line) for line in log)
    assert "Traceback" not in proc.stderr


def test_full_builtin_ladder_at_a_tiny_size(cli, tmp_path, monkeypatch):
    out = tmp_path / "out"
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the workers inherit it: no rung leaves files
    proc = cli(
        "run",
        "--set",
        "all",
        "--size",
        "16",
        "--repeats",
        "3",
        "--min-time",
        "0.002",
        "--no-probes",
        "--out",
        out,
        "--json",
        out / "s.json",
        "--markdown",
        out / "r.md",
        "--csv",
        out / "r.csv",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = RunSummary.load(out / "s.json")
    statuses = {s.name: s.status for s in summary.scenarios}
    # PyTorch and Mojo are not installed by the test set-up (make torch, make mojo)
    optional = {"torch_matmul", "mojo_naive", "mojo_tiled_simd"}
    assert set(statuses) == {s.name for s in discover()}  # --set all: every scenario
    lower = {s.name: s for s in discover() if "float64" not in s.dtypes}  # the precision axis
    assert lower
    for name, spec in lower.items():  # at its own precision beside the float64 rungs
        result = summary.scenario(name)
        assert result.dtype == spec.dtypes[0], name
        assert result.status == "ok" or "this CPU" in (result.error or ""), (name, result.error)
    # a rung that exists for wider vectors than this CPU's says so and is skipped (on AVX2:
    # c_blocked_packed_256, whose 512-bit form c_blocked_packed already is here)
    narrower = {
        s.name for s in summary.scenarios if s.status == "skipped" and "this CPU" in (s.error or "")
    }
    assert all(
        status == "ok"
        for name, status in statuses.items()
        if name not in optional | set(lower) | narrower
    )
    for name in optional:  # installed: ok; missing: skipped with its install line
        assert statuses[name] == "ok" or "make " in (summary.scenario(name).error or ""), name
    measured = [s for s in summary.scenarios if s.status == "ok"]
    assert all(s.n == 16 and len(s.samples_s) == 3 for s in measured)
    for name in ("c_naive_O0", "c_ikj_O3_native", "c_openmp"):  # built, validated, recorded
        assert summary.scenario(name).build.command
    nuitka = summary.scenario("nuitka_naive")  # Python unchanged, built by Nuitka's own scons
    assert nuitka.build.compiler == "Nuitka" and "nuitka" in nuitka.build.compiler_version.lower()
    assert nuitka.events_per_fma is not None and nuitka.events_per_fma.python_twin
    assert summary.dense.name == "numpy_matmul" and summary.dense.vs_dense == pytest.approx(1)
    assert summary.machine.blas.library and summary.machine.numpy_version
    assert summary.scenario("numba_ikj").compile_s > 0  # JIT time kept apart
    assert summary.scenario("numpy_matmul_1thread").blas_threads == 1
    assert all(len(s.sample_cores) == 3 for s in measured)  # CPU over wall, each sample
    assert list(temp.iterdir()) == []  # jax_fori_naive's XLA dump folder among them
    xla = summary.scenario("jax_matmul").build  # the kernel XLA chose, read off its HLO
    assert xla.compiler == "XLA" and xla.module and xla.module != "unknown"
    code = summary.scenario("jax_fori_naive").generated_code  # XLA's own machine code
    assert code is not None and code.hot_loop and "objdump" in code.method
    assert RunSummary.load(out).to_json() == summary.to_json()  # summary.json in the run dir
    assert "numpy_matmul" in proc.stdout and "× dense" in proc.stdout
    assert len(re.findall(r"\| ok( !)? \|", (out / "r.md").read_text())) == len(measured)
    assert len((out / "r.csv").read_text().splitlines()) == len(summary.scenarios) + 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--scenario", "nope"], "unknown scenario 'nope'"),
        (["run", "--size", "0"], "0 is below 1"),
        (["run", "--size", "abc"], "'abc' is not a whole number"),
        (
            ["run", "--scenario", "python_naive", "--size", "513"],
            "above python_naive's maximum of 512",
        ),
        (
            ["run", "--scenario", "numpy_matmul", "--size", "16000000"],
            "above numpy_matmul's maximum",
        ),
        (["run", "--dtype", "int4"], "invalid choice: 'int4'"),
        (["sweep", "--budget", "1e300"], "1e+300 s is above a week; fix: give at most"),
        (
            ["run", "--scenario", "python_naive", "--dtype", "int8"],
            "no chosen scenario computes int8: python_naive (float64/float32); fix: --dtype "
            "float64",
        ),
        (["run", "--repeats", "-1"], "-1 is below 1"),
        (["run", "--timeout", "0"], "must be above 0"),
        (["run", "--timeout", "nan"], "'nan' is not a number"),
        (["run", "--min-time", "nan"], "'nan' is not a number"),
        (["run", "--scenarios-dir", FIXTURES / "broken_syntax"], "syntax error"),
        (["run", "--scenarios-dir", FIXTURES / "broken_missing"], "missing declaration RUNG"),
        (["run", "--scenarios-dir", FIXTURES / "nope"], "does not exist"),
        (["run", "--python", "/no/such/python"], "no such executable"),
        (["run", "--python", "no-such-python-on-path"], "no such executable"),
        (["run", "--python", FIXTURES / "recorded_summary.json"], "is not executable"),
        (["run", "--python", FIXTURES], "is a folder"),
        (
            ["list", "--scenarios-dir", FIXTURES / "broken_layer"],
            "LAYERS names unknown layer(s) 'gremlins'",
        ),
        (["run", "--json", "/tmp/x.txt", "--scenario", "nope"], "unknown scenario"),
        (["machine", "--json", FIXTURES], "is a folder"),
        (["machine", "--json", FIXTURES / "recorded_summary.json" / "m.json"], "not a folder"),
        (["run", "--no-probes", "--refresh-probes"], "--refresh-probes: not allowed with"),
        (["sweep", "--refresh-probes", "--no-probes"], "--no-probes: not allowed with"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, args, message):
    proc = cli(*args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 3  # argparse adds its usage line


def test_a_size_too_big_for_the_memory_is_one_line_and_exit_2(monkeypatch, capsys):
    """The memory check with the available memory fixed at 8 GiB: on a machine where
    16384² fits, the real command would start an hour-long run instead."""
    from overhead_tui.cli import main

    monkeypatch.setattr("overhead_tui.commands.common.available_memory_bytes", lambda: 8 << 30)
    args = ["run", "--scenario", "numpy_matmul", "--size", "16384", "--dtype", "float64"]
    assert main([*args, "--no-probes"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only 8.0 GiB is available" in err
    assert "fix: choose a smaller --size" in err


@pytest.mark.parametrize(
    "argv, before",
    [
        (["--size", "8", "--scenario", "numpy_matmul", "run"], "--size 8 --scenario numpy_matmul"),
        (["--scenario", "run", "--size=8", "run"], "--scenario run --size=8"),
    ],
)
def test_options_before_the_command_are_refused_not_dropped(capsys, argv, before):
    """``overhead-tui --size 8 run`` used to run the whole ladder at the default sizes: the
    subcommand's defaults replaced what was given before it."""
    from overhead_tui.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    command = argv[-1]
    assert err == (
        f"overhead-tui: error: `{before}` before `{command}` would be ignored (a command reads "
        f"only the options after it); fix: write overhead-tui {command} {before} ... "
        f"(see `overhead-tui {command} --help`)\n"
    )


def test_an_option_the_command_does_not_have_is_not_suggested_after_it(capsys):
    """``overhead-tui --dtype float32 list`` suggested ``list --dtype float32``, which list
    refuses: an option the command lacks is named, with the fix to drop it."""
    from overhead_tui.cli import main

    assert main(["--dtype", "float32", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`list` has no --dtype; fix: drop it" in err
    assert main(["--no-autorun", "list"]) == 2
    assert "`list` has no --no-autorun" in capsys.readouterr().err


def test_python_without_numpy_is_rejected(cli, tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    proc = cli("run", "--python", venv / "bin" / "python", "--scenario", "python_naive")
    assert proc.returncode == 2
    assert "cannot import numpy" in proc.stderr


def test_list_shows_rungs_layers_and_removes(cli):
    proc = cli("list")
    assert proc.returncode == 0
    assert "python_naive" in proc.stdout and "[dense kernel]" in proc.stdout
    assert proc.stdout.count("layers:") == len(discover())


def test_ctrl_c_keeps_finished_results_and_stops_the_worker(tmp_path):
    out = tmp_path / "run"
    proc = start_cli(
        "run",
        "--scenarios-dir",
        FAULTY,
        "--scenario",
        "noisy",
        "--scenario",
        "hangs",
        "--scenario",
        "raises",
        *FAST,
        "--out",
        out,
    )
    worker_pid = _wait_for_worker(out / "log.jsonl", "hangs")
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr
    summary = RunSummary.load(out)
    statuses = {s.name: s.status for s in summary.scenarios}
    assert statuses == {"raises": "error", "hangs": "skipped", "noisy": "skipped"}
    assert summary.scenario("raises").error  # the finished result is kept
    assert not summary.finished
    assert wait_gone(worker_pid), "the worker outlived the interrupted run"


def _logged_events(log):
    """The events in a run's ``log.jsonl`` so far (a line being written is left out)."""
    events = []
    for line in log.read_text().splitlines() if log.exists() else []:
        with contextlib.suppress(json.JSONDecodeError):
            events.append(json.loads(line))
    return events


def _wait_for_worker(log, name, timeout=120.0):
    """The pid of ``name``'s worker once it reported its environment (past its start-up)."""

    def pid():
        events = [e for e in _logged_events(log) if e.get("name") == name]
        if any(e.get("kind") == "environment" for e in events):
            return next(e["pid"] for e in events if "pid" in e)
        return None

    return wait_until(pid, timeout, f"{name}'s worker starting")


def test_open_corrupt_or_foreign_summary_is_one_line(cli, tmp_path):
    corrupt = tmp_path / "summary.json"
    corrupt.write_text('{"schema_version": 1, "scenarios": [')
    proc = cli("open", corrupt)
    assert proc.returncode == 2 and "is not JSON" in proc.stderr
    foreign = tmp_path / "package.json"
    foreign.write_text('{"name": "left-pad"}')
    proc = cli("open", foreign)
    assert proc.returncode == 2 and "not an overhead-tui summary" in proc.stderr
    proc = cli("open", tmp_path / "nothing-here")
    assert proc.returncode == 2 and "cannot read" in proc.stderr
    assert "Traceback" not in proc.stderr
    (tmp_path / "empty").mkdir()
    proc = cli("open", tmp_path / "empty")
    assert proc.returncode == 2 and "is not a run directory (no summary.json" in proc.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("list",), ("compare", RECORDED_SUMMARY, RECORDED_SUMMARY)])
def test_stdout_on_a_full_device_is_one_line_not_a_traceback(args):
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "overhead_tui", *map(str, args)],
            stdout=full,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 1
    assert proc.stderr == (
        "overhead-tui: error: cannot write the output: No space left on device; "
        "fix: free space on its device or write somewhere else\n"
    )


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_export_to_a_full_device_is_bad_input_and_the_run_is_kept(cli, tmp_path):
    proc = cli(
        "run", "--scenario", "numpy_matmul", *FAST, "--out", tmp_path / "run", "--json", "/dev/full"
    )
    assert proc.returncode == 2, proc.stderr
    assert (
        "overhead-tui: error: cannot write /dev/full: No space left on device; fix: free "
        "space on its device, or give a path on another one"
    ) in proc.stderr
    assert (tmp_path / "run" / "summary.json").exists()  # nothing finished is lost


def test_app_without_a_terminal_says_what_to_do(cli):
    proc = cli()
    assert proc.returncode == 2
    assert "needs a terminal" in proc.stderr and "overhead-tui run" in proc.stderr
    proc = cli("--scenario", "nope")  # bad input is still reported first
    assert proc.returncode == 2 and "unknown scenario 'nope'" in proc.stderr


@pytest.mark.parametrize(
    ("command", "export", "own"),
    [
        (["run", "--scenario", "python_naive", *FAST], ["--csv"], "summary.json"),
        (["run", "--scenario", "python_naive", *FAST], ["--markdown"], "log.jsonl"),
        (["shapes", "--scenario", "numpy_matmul", "--budget", "1"], ["--json"], "run.lock"),
    ],
)
def test_an_export_over_the_runs_own_files_is_refused(cli, tmp_path, command, export, own):
    out = tmp_path / "run"
    proc = cli(*command, "--out", out, *export, out / own)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"overhead-tui: error: {export[0]} {out / own} would replace the run's own {own}; fix: "
        "give another file name (a run writes log.jsonl, logs, points, run.lock, "
        "summary.json in --out)\n"
    )
    assert not out.exists()  # refused before anything ran


def test_an_export_over_another_saved_runs_files_is_refused_and_that_run_kept(cli, tmp_path):
    saved = tmp_path / "saved"  # a saved run: its summary and its log
    saved.mkdir()
    shutil.copy(RECORDED_SUMMARY, saved / "summary.json")
    (saved / "log.jsonl").write_text('{"kind": "run_started"}\n')
    before = {p.name: p.read_bytes() for p in (saved / "summary.json", saved / "log.jsonl")}
    for option, own in (("--markdown", "summary.json"), ("--csv", "log.jsonl")):
        proc = cli("run", "--scenario", "python_naive", *FAST, "--out", tmp_path / "new",
                   option, saved / own)  # fmt: skip
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr == (
            f"overhead-tui: error: {option} {saved / own} would replace the {own} of the saved "
            f"run in {saved}; fix: give a file name outside that run's own files\n"
        )
    assert {p.name: p.read_bytes() for p in (saved / "summary.json", saved / "log.jsonl")} == before
    assert not (tmp_path / "new").exists()  # refused before anything ran
    from overhead_tui.commands.export_paths import check_export_paths

    check_export_paths({"--markdown": saved / "report.md"})  # a file of its own beside them
    with pytest.raises(UsageError, match="would replace the logs of the saved run"):
        check_export_paths({"--csv": saved / "logs" / "x.csv"})


# every command that takes --scenarios-dir; an unknown --scenario keeps each one short
# should the folder be accepted (it then fails on the name instead, after discovery)
NOPE = ["--scenario", "nope"]
THIS_PYTHON = ["interpreters", "--python", sys.executable, "--no-provision"]
SCENARIOS_DIR_COMMANDS = {
    "run": ["run", *NOPE],
    "list": ["list"],
    "profile": ["profile", "nope"],
    "sweep": ["sweep", *NOPE],
    "shapes": ["shapes", *NOPE],
    "interpreters": [*THIS_PYTHON, *NOPE],
    "app": NOPE,
}


@pytest.mark.parametrize("command", SCENARIOS_DIR_COMMANDS.values(), ids=SCENARIOS_DIR_COMMANDS)
def test_a_scenarios_dir_holding_no_scenario_file_is_refused(cli, tmp_path, command):
    """A wrong folder would run the built-ins alone, silently without the user's own rungs."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a scenario")
    (folder / "_helpers.py").write_text("")  # a file starting with _ is not read as one
    proc = cli(*command, "--scenarios-dir", folder)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(
        f"overhead-tui: error: scenarios folder {folder} holds no scenario file (a NAME.py"
    )
    assert (
        "fix: give the folder your scenario files are in, or write one there with "
        f"`overhead-tui new my_loop --dir {folder}`"
    ) in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_scenarios_dir_above_the_scenario_files_names_the_folder_they_are_in(cli, tmp_path):
    (tmp_path / "mine").mkdir()
    shutil.copy(FIXTURES / "fast" / "fast_python.py", tmp_path / "mine")
    proc = cli("list", "--scenarios-dir", tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "holds no scenario file" in proc.stderr
    assert f"fix: give the folder your scenario files are in, e.g. {tmp_path / 'mine'}" in (
        proc.stderr
    )
    assert cli("list", "--scenarios-dir", tmp_path / "mine").returncode == 0


# every export option of every command, each command kept short should the path be accepted
EXPORT_OPTIONS = {
    ("run", "--scenario", "python_naive", *FAST): ("--json", "--markdown", "--csv"),
    ("profile", "python_naive", "--size", "8", "--duration", "0.1", "--backend", "pyspy"): (
        "--json",
        "--speedscope",
        "--collapsed",
    ),
    ("machine",): ("--json",),
    ("shapes", "--scenario", "numpy_matmul", "--budget", "1"): ("--json", "--markdown"),
    (*THIS_PYTHON, "--scenario", "python_naive", *FAST): ("--json", "--markdown"),
}
EXPORTS_IN_A_MISSING_FOLDER = [(c, o) for c, options in EXPORT_OPTIONS.items() for o in options]


@pytest.mark.parametrize(
    ("command", "option"),
    EXPORTS_IN_A_MISSING_FOLDER,
    ids=[f"{c[0]}{o}" for c, o in EXPORTS_IN_A_MISSING_FOLDER],
)
def test_an_export_into_a_missing_folder_is_refused_before_anything_runs(
    cli, tmp_path, command, option
):
    """A mistyped folder is named, not created to hold the file where nobody looks."""
    path = tmp_path / "no" / "such" / "x.out"
    proc = cli(*command, option, path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == (
        f"overhead-tui: error: cannot write {option} {path}: the folder {path.parent} does not "
        f"exist; fix: create it first (mkdir -p {path.parent}), or give a path in an existing "
        "folder\n"
    )
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "/proc/no/such/dir"], "cannot create the run folder"),
        (["--out", "/etc/hostname"], "is a file"),
        (["--json", "/etc/hostname/s.json"], "/etc/hostname is not a folder"),
        (["--json", "/tmp/same.json", "--markdown", "/tmp/same.json"], "same file"),
        (["--seed", "-1"], "-1 is below 0"),
        (["--python", "/bin/true"], "is not a Python interpreter"),
    ],
)
def test_bad_paths_fail_before_measuring(cli, args, message):
    proc = cli("run", "--scenario", "python_naive", *FAST, *args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--scenario", "numpy_matmul", *FAST, "--timeout", "1e10"],
        ["sweep", "--scenario", "numpy_matmul", "--sizes", "8", *FAST, "--timeout", "1e10"],
        ["profile", "numpy_matmul", "--size", "8", "--timeout", "1e10"],
        ["profile", "numpy_matmul", "--size", "8", "--duration", "1e10"],
    ],
)
def test_a_time_too_long_to_wait_for_is_refused_before_measuring(cli, tmp_path, args):
    """``--timeout 1e10`` ("no limit") used to run, then crash with an OverflowError
    traceback from select() when the first worker started (exit 1)."""
    proc = cli(*args, "--out", tmp_path / "run") if args[0] != "profile" else cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "is above" in proc.stderr and "fix:" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_reusing_a_run_folder_is_refused(cli, tmp_path):
    out = tmp_path / "run"
    assert cli("run", "--scenario", "numpy_matmul", *FAST, "--out", out).returncode == 0
    proc = cli("run", "--scenario", "numpy_matmul", *FAST, "--out", out)
    assert proc.returncode == 2 and "already holds a run" in proc.stderr


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("OTHER = {[1]: 2}\nREQUIRES = 5\n", "REQUIRES must be a tuple of strings"),
        ("LAYERS = ([1],)\n", "LAYERS must be a tuple of strings"),
        ("x = '\\0'\x00\n", "null bytes"),
    ],
)
def test_malformed_declarations_are_usage_errors(cli, tmp_path, body, message):
    source = (FAULTY / "raises.py").read_text() + "\n" + body
    (tmp_path / "bad.py").write_bytes(source.encode())
    proc = cli("list", "--scenarios-dir", tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_kernel_exit_and_forked_child_are_reported_honestly(cli, tmp_path):
    (tmp_path / "exits_zero.py").write_text(
        (FAULTY / "raises.py")
        .read_text()
        .replace('NAME = "raises"', 'NAME = "exits_zero"')
        .replace('raise RuntimeError("kernel exploded on purpose")', "raise SystemExit(0)")
    )
    (tmp_path / "forker.py").write_text(
        (FAULTY / "raises.py")
        .read_text()
        .replace('NAME = "raises"', 'NAME = "forker"')
        .replace("RUNG = 101", "RUNG = 102")
        .replace(
            '    raise RuntimeError("kernel exploded on purpose")',
            "    import os, time\n    if not hasattr(kernel, 'child'):\n"
            "        kernel.child = os.fork()\n        if kernel.child == 0:\n"
            "            time.sleep(30)\n            os._exit(0)\n    return a @ b",
        )
    )
    proc = cli(
        "run",
        "--scenarios-dir",
        tmp_path,
        "--scenario",
        "exits_zero",
        "--scenario",
        "forker",
        *FAST,
        "--timeout",
        "20",
        "--json",
        tmp_path / "s.json",
    )
    summary = RunSummary.load(tmp_path / "s.json")
    assert summary.scenario("exits_zero").status == "error"
    assert "SystemExit" in summary.scenario("exits_zero").error
    assert summary.scenario("forker").status == "ok", summary.scenario("forker").error
    assert proc.returncode == 1


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["term", "kill"])
def test_parent_stopped_or_killed_leaves_no_worker(tmp_path, sig):
    out = tmp_path / "run"
    proc = start_cli("run", "--scenarios-dir", FAULTY, "--scenario", "hangs", *FAST, "--out", out)
    worker_pid = _wait_for_worker(out / "log.jsonl", "hangs")
    proc.send_signal(sig)
    proc.communicate(timeout=120)
    assert proc.returncode == (130 if sig == signal.SIGTERM else -signal.SIGKILL)
    assert wait_gone(worker_pid), "the worker outlived its parent"


def test_probes_give_positive_plausible_unit_costs(tmp_path):
    """Two cheap probes, each in its own worker process (the others run in the benchmark)."""
    from overhead_tui.engine.probe_runs import measure_probe
    from overhead_tui.plugins.probes import discover_probes

    specs = {s.name: s for s in discover_probes()}
    assert set(specs) >= {
        "dispatch",
        "boxing",
        "container_access",
        "call_overhead",
        "numpy_call",
        "scalar_fma",
        "simd_fma",
        "stream_triad",
    }
    dispatch = measure_probe(
        specs["dispatch"], sys.executable, processes=1, repeats=3, min_sample_s=0.01
    )
    boxing = measure_probe(
        specs["boxing"], sys.executable, processes=1, repeats=3, min_sample_s=0.01
    )
    # measured and well-formed; plausible ranges are the benchmark's (scripts/benchmark.py)
    for probe, unit in ((dispatch, "ns/dispatch"), (boxing, "ns/float")):
        assert probe.error is None and probe.unit == unit
        assert math.isfinite(probe.value)
        assert len(probe.samples) == 1 and probe.samples[0] == probe.value  # one process
    # a dispatch is a whole loop trip's time; boxing is a few-ns difference of two loops,
    # which a loaded machine can push below zero (shown as "below resolution", never a cost)
    assert dispatch.value > 0
    assert boxing.details["floats_per_trip"] == 8.0  # eight multiplies per loop trip
    assert "int_ns" in boxing.details  # the int results' cost, measured beside the floats'
    # the same multiply compiled untyped by Cython (the test extra has it): the generic number
    # protocol's price, or the reason it is missing
    assert "c_api_float_ns" in boxing.details, boxing.details.get("c_api_missing")
    # and a list subscript with an object index through the mapping protocol (Nuitka's path)
    assert math.isfinite(boxing.details["c_api_subscript_ns"])
    for probe in (dispatch, boxing):  # the other processes' load while it was measured
        assert probe.other_cpu_fraction is None or 0.0 <= probe.other_cpu_fraction <= 1.0


def test_run_with_probes_writes_breakdowns_and_waterfall(cli, tmp_path):
    # a prepared cache (real values from the recorded run) keyed for this machine
    seed_probe_cache(tmp_path / "cache" / "overhead-tui" / "probes.json", RECORDED_SUMMARY)
    proc = cli(
        "run",
        "--scenario",
        "python_hoisted",
        "--scenario",
        "numba_ikj",
        "--scenario",
        "numpy_matmul",
        "--size",
        "24",
        "--repeats",
        "2",
        "--min-time",
        "0.005",
        "--json",
        tmp_path / "s.json",
        "--markdown",
        tmp_path / "r.md",
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(tmp_path / "s.json")
    hoisted = summary.scenario("python_hoisted")
    assert hoisted.events_per_fma.floats == pytest.approx(2.0, rel=0.1)
    assert hoisted.breakdown.layers["interpreter_dispatch"] > 0
    # at n = 24 the jitted rung's Python wrapper is a few bytecodes per 13,824 multiply-adds
    # (counted, not timed); its time share follows from the count, the probe and the median
    numba = summary.scenario("numba_ikj")
    assert numba.events_per_fma.dispatches * 24**3 < 100
    assert hoisted.events_per_fma.dispatches > 1
    for scenario in (hoisted, numba):
        breakdown = scenario.breakdown
        row = next(r for r in breakdown.rows if r.layer == "interpreter_dispatch")
        assert row.ns_per_fma == pytest.approx(row.events_per_fma * row.unit_cost)
        assert row.share == pytest.approx(row.ns_per_fma / breakdown.measured_ns_per_fma)
        assert math.isfinite(row.share) and row.share >= 0
    assert [(w.from_, w.to) for w in summary.waterfall] == [
        ("python_hoisted", "numba_ikj"),
        ("numba_ikj", "numpy_matmul"),
    ]
    assert any(b.opname == "BINARY_OP_MULTIPLY_FLOAT" for b in hoisted.bytecode)
    report = (tmp_path / "r.md").read_text()
    assert "## Breakdown" in report and "## Waterfall" in report


def test_workers_use_this_package_not_one_in_the_current_folder(tmp_path):
    shadow = tmp_path / "overhead_tui"  # e.g. another checkout, or a stray folder
    (shadow / "engine").mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    (shadow / "engine" / "__init__.py").write_text("")
    (shadow / "engine" / "worker.py").write_text("raise SystemExit('the wrong worker ran')\n")
    (tmp_path / "numpy.py").write_text("raise SystemExit('a stray numpy.py was imported')\n")
    out = tmp_path / "run"
    # the installed command, as a user runs it (``python -m`` would shadow the parent too)
    command = os.path.join(os.path.dirname(sys.executable), "overhead-tui")
    # --python: the interpreter check must not import the stray numpy.py either
    args = ["run", "--scenario", "numpy_matmul", *FAST, "--python", sys.executable]
    proc = subprocess.run(
        [command, *args, "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert RunSummary.load(out).scenario("numpy_matmul").status == "ok"


def test_machine_json_to_stdout(cli, tmp_path):
    seed_probe_cache(tmp_path / "cache" / "overhead-tui" / "probes.json", RECORDED_SUMMARY_V3)
    proc = cli("machine", "--json", "-", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    limits = json.loads(proc.stdout)  # the JSON alone on stdout
    assert limits["peak_gflops"]["float64"]["measured"] > 0
    assert "theoretical" in proc.stderr and "memory bandwidth" in proc.stderr
    assert not (tmp_path / "-").exists()


def test_each_log_says_how_its_worker_ended(cli, tmp_path):
    names = ("raises", "setup_fails", "segfaults", "noisy")
    args = [a for name in names for a in ("--scenario", name)]
    proc = cli("run", "--scenarios-dir", FAULTY, *args, *FAST, "--out", tmp_path / "run")
    assert proc.returncode == 1, proc.stderr
    logs = {name: (tmp_path / "run" / "logs" / f"{name}.stderr.txt").read_text() for name in names}
    # the worker's own last word, then the runner's
    assert "worker ended with error (exception) after" in logs["raises"]
    assert "worker ended with error (setup) after" in logs["setup_fails"]
    assert "worker finished ok in" in logs["noisy"]
    assert all("worker finished in" not in log for log in logs.values())
    # a raised error's traceback is in the scenario's log, not only in log.jsonl
    assert "Traceback" in logs["setup_fails"] and "KeyError: 'missing key'" in logs["setup_fails"]
    assert "RuntimeError: kernel exploded on purpose" in logs["raises"]
    last = {name: log.splitlines()[-1] for name, log in logs.items()}
    assert last["raises"] == "runner: status error; worker exited with code 3"
    assert last["setup_fails"] == "runner: status error; worker exited with code 3"
    assert last["segfaults"] == "runner: status crashed; worker killed by SIGSEGV"
    assert last["noisy"] == "runner: status ok; worker exited with code 0"
    # the crash reason still comes from faulthandler, not from the lines above
    summary = RunSummary.load(tmp_path / "run" / "summary.json")
    assert "runner:" not in (summary.scenario("segfaults").error or "")


def test_open_announces_a_large_summary_and_refuses_a_huge_one(cli, tmp_path):
    data = json.loads((FIXTURES / "recorded_summary.json").read_text())
    data["scenarios"][0]["samples_s"] = [0.098 + i * 1e-9 for i in range(400_000)]
    large = tmp_path / "large.json"
    large.write_text(json.dumps(data))
    megabytes = large.stat().st_size / 1e6
    assert megabytes > 5  # above the size that is announced
    proc = cli("open", large)
    # read and validated (no error about it), then refused only for want of a terminal
    assert proc.stderr.splitlines()[0] == f"overhead-tui: reading {large} ({megabytes:.0f} MB) ..."
    assert proc.returncode == 2 and "needs a terminal" in proc.stderr
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as fh:  # sparse: no disk space, and never read
        fh.truncate(766_000_000)
    proc = cli("open", huge)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "is 766 MB, above the 200 MB limit for a summary" in proc.stderr
