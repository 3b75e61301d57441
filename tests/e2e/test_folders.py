"""The folders a run writes: one owner per run directory, unwritable places fail first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from overhead_tui.engine.run_dir import prepare_run_dir, unlock_run_dir
from overhead_tui.errors import UsageError
from overhead_tui.kit import cbuild, folders
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST, FAULTY, FIXTURES, start_cli


def _cli(*args, env=None, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "overhead_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        **kwargs,
    )


def _wait_for(path: Path, process: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, "the first run ended early"
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


FAST_RUN = ("--scenarios-dir", FIXTURES / "fast", "--scenario", "fast_python", *FAST)


def test_a_second_run_into_a_running_out_is_refused(tmp_path):
    out = tmp_path / "run"
    first = start_cli(
        "run",
        *("--scenarios-dir", FAULTY, "--scenario", "hangs", *FAST),
        *("--timeout", "120", "--out", out),
        stdout=subprocess.DEVNULL,
    )
    try:
        _wait_for(out / "log.jsonl", first)
        second = _cli("run", *FAST_RUN, "--out", out)
        assert second.returncode == 2
        line = second.stderr.strip()
        assert "\n" not in line and "Traceback" not in line
        assert f"--out {out} is in use by another run (pid {first.pid})" in line
        assert "fix:" in line
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130
    after = _cli("run", *FAST_RUN, "--out", out)  # the lock ends with its run
    assert after.returncode == 2 and "already holds a run" in after.stderr


def test_a_run_dir_taken_by_a_starting_run_is_refused(tmp_path):
    """Two runs started together: the second must not slip in before the first saves."""
    out = tmp_path / "run"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, pathlib, time\n"
            "from overhead_tui.engine.run_dir import prepare_run_dir\n"
            "prepare_run_dir(pathlib.Path(sys.argv[1]))\n"
            "print('taken', flush=True)\n"
            "time.sleep(300)\n",
            str(out),
        ],
        stdout=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert holder.stdout.readline().strip() == "taken"
        second = _cli("run", *FAST_RUN, "--out", out)
        assert second.returncode == 2, second.stderr
        assert f"--out {out} is in use by another run" in second.stderr
        assert not (out / "summary.json").exists()
    finally:
        holder.kill()
        holder.wait()


def test_the_same_process_may_prepare_its_run_dir_again(tmp_path):
    assert prepare_run_dir(tmp_path / "run") == tmp_path / "run"
    unlock_run_dir(tmp_path / "run")


def _not_a_folder(tmp_path: Path) -> Path:
    """A path under a regular file: no one, not even root, can create a folder there."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / "sub"


def test_no_out_and_an_unwritable_data_dir_names_the_folder_and_the_fix(tmp_path):
    data = _not_a_folder(tmp_path)
    proc = _cli("run", *FAST_RUN, env={"XDG_DATA_HOME": str(data)})
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert f"{data}/overhead-tui/runs" in line
    assert "--out" in line and "XDG_DATA_HOME" in line


@pytest.mark.skipif(
    not os.path.isdir("/sys/kernel") or folders.writable_problem(Path("/sys/kernel")) is None,
    reason="needs a folder that exists and cannot be written (sysfs)",
)
def test_out_on_an_existing_unwritable_folder_is_one_line():
    proc = _cli("run", *FAST_RUN, "--out", "/sys/kernel")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "/sys/kernel" in line and "fix: give --out a writable folder" in line


def test_an_unwritable_cache_falls_back_with_a_warning_and_c_rungs_run(tmp_path):
    cache = _not_a_folder(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    proc = _cli(
        "run",
        "--scenario",
        "c_naive_O2",
        *FAST,
        "--out",
        tmp_path / "run",
        env={"XDG_CACHE_HOME": str(cache), "TMPDIR": str(temp)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warning = next(x for x in proc.stderr.splitlines() if "warning" in x)
    assert f"{cache}/overhead-tui" in warning and "XDG_CACHE_HOME" in warning
    assert str(temp) in warning  # the temporary cache in use
    assert "Traceback" not in proc.stderr
    # and the rung's build record says where it was built (the workers saw a writable cache)
    build = RunSummary.load(tmp_path / "run" / "summary.json").scenario("c_naive_O2").build
    assert build.cache_warning is not None and str(temp) in build.cache_warning


def test_build_cache_falls_back_to_a_private_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(_not_a_folder(tmp_path)))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    folder, warning = cbuild.usable_cache_dir()
    assert folder.is_relative_to(tmp_path / f"overhead-tui-cache-{os.getuid()}")
    assert warning is not None and "XDG_CACHE_HOME" in warning
    assert (tmp_path / f"overhead-tui-cache-{os.getuid()}").stat().st_mode & 0o077 == 0


def test_a_temporary_cache_owned_by_others_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    shared = tmp_path / f"overhead-tui-cache-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)  # anyone could plant a library in it
    chosen = folders.private_temp_cache()
    assert chosen is not None and chosen != shared and chosen.parent == tmp_path


def test_no_writable_cache_at_all_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(_not_a_folder(tmp_path)))
    monkeypatch.setattr("tempfile.tempdir", str(_not_a_folder(tmp_path)))
    with pytest.raises(UsageError, match="XDG_CACHE_HOME"):
        folders.ensure_cache()


def test_out_on_a_folder_with_other_files_is_refused_and_left_alone(tmp_path, cli):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    proc = cli("run", "--scenario", "python_naive", *FAST, "--out", folder)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "notes.txt" in line and "fix: give a new or empty folder" in line
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]  # no lock, no logs


def test_an_export_given_a_folder_names_its_option_and_a_fitting_file(tmp_path, cli):
    proc = cli("run", "--scenario", "python_naive", *FAST, "--markdown", tmp_path)
    assert proc.returncode == 2
    assert f"--markdown {tmp_path} is a folder" in proc.stderr
    assert f"{tmp_path / 'report.md'}" in proc.stderr


def test_an_export_into_a_folder_where_nothing_can_be_created_fails_before_measuring(cli):
    proc = cli("run", "--scenario", "python_naive", *FAST, "--csv", "/proc/x.csv")
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and "--csv /proc/x.csv" in line and "fix: give a path" in line
    assert "python_naive: ok" not in proc.stderr  # refused before anything was measured


def test_a_sample_longer_than_a_minute_is_refused(cli):
    proc = cli("run", "--scenario", "python_naive", "--size", "8", "--min-time", "1e300")
    assert proc.returncode == 2
    assert "--min-time" in proc.stderr and "at most 60 seconds" in proc.stderr
