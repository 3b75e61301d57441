"""Output streams that cannot take everything: ascii encodings, ``TERM=dumb``, ``NO_COLOR``."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from overhead_tui.present.terminal import colour_wanted, to_ascii
from tests.conftest import FAST, RECORDED_SUMMARY

SCENARIOS = ["--scenario", "python_naive", "--scenario", "numpy_matmul"]


def run_cli_env(*args, **env: str) -> subprocess.CompletedProcess[bytes]:
    """The CLI with extra environment variables; output as bytes (no decoding in the test)."""
    return subprocess.run(
        [sys.executable, "-m", "overhead_tui", *map(str, args)],
        capture_output=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env},
    )


def test_an_ascii_stdout_gets_the_table_and_the_exports(tmp_path):
    csv = tmp_path / "ladder.csv"
    proc = run_cli_env(
        "run", *SCENARIOS, *FAST, "--out", tmp_path / "run", "--csv", csv,
        PYTHONIOENCODING="ascii",
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr  # 1: a rung may be flagged, never a crash
    assert b"UnicodeEncodeError" not in proc.stderr
    out = proc.stdout.decode("ascii")  # every byte is ASCII
    assert "x dense" in out.splitlines()[0]
    assert "python_naive" in out and "numpy_matmul" in out
    assert csv.exists() and (tmp_path / "run" / "summary.json").exists()


def test_compare_on_an_ascii_stdout_prints_its_table():
    proc = run_cli_env("compare", RECORDED_SUMMARY, RECORDED_SUMMARY, PYTHONIOENCODING="ascii")
    assert proc.returncode == 0, proc.stderr
    assert b"python_naive" in proc.stdout and proc.stdout.isascii()


@pytest.mark.parametrize("env", [{"TERM": "dumb"}, {"NO_COLOR": "1"}], ids=["dumb", "no-color"])
def test_the_cli_prints_no_escapes(tmp_path, env):
    proc = run_cli_env("run", *SCENARIOS, *FAST, "--out", tmp_path / "run", **env)
    assert proc.returncode in (0, 1), proc.stderr
    assert b"python_naive" in proc.stdout
    assert b"\x1b[" not in proc.stdout + proc.stderr


def test_the_ascii_stand_ins():
    assert to_ascii("37× — 1.2 µs …▇▇") == "37x - 1.2 us ...##"
    assert colour_wanted({"TERM": "xterm"})
    assert not colour_wanted({"TERM": "dumb"})
    assert not colour_wanted({"TERM": "xterm", "NO_COLOR": ""})


COLOUR_PARAMS = {38, 48, *range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108)}
"""SGR parameters that set a colour (39 and 49, the terminal's defaults, do not)."""


def colour_escapes(output: bytes) -> list[bytes]:
    """The SGR escape sequences in ``output`` that set a foreground or background colour."""
    found = []
    for match in re.finditer(rb"\x1b\[([0-9;:]*)m", output):
        params = {int(p) for p in re.split(rb"[;:]", match.group(1)) if p}
        if params & COLOUR_PARAMS:
            found.append(match.group(0))
    return found


def app_output(env: dict[str, str], until: bytes, timeout: float = 60.0) -> bytes:
    """Everything ``overhead-tui open`` writes to a pseudo-terminal until ``until`` is drawn,
    then ``q`` and the rest until it exits."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app on the pseudo-terminal
        os.execve(
            sys.executable,
            [sys.executable, "-m", "overhead_tui", "open", str(RECORDED_SUMMARY)],
            {**os.environ, "COLUMNS": "100", "LINES": "30", **env},
        )
    output = b""
    deadline = time.monotonic() + timeout
    quit_sent = False
    try:
        while time.monotonic() < deadline:
            if not quit_sent and until in output:
                os.write(fd, b"q")
                quit_sent = True
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the app exited and closed the terminal
                break
            if not chunk:
                break
            output += chunk
    finally:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still running: the test failed
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert quit_sent, f"{until!r} never drawn"
    return output


@pytest.mark.parametrize(
    "env",
    [{"TERM": "dumb"}, {"TERM": "xterm-256color", "NO_COLOR": "1"}],
    ids=["dumb", "no-color"],
)
def test_the_app_draws_without_colour(env):
    output = app_output(env, until=b"python_zip_sum")
    assert b"python_zip_sum" in output
    assert colour_escapes(output) == []


def test_the_app_draws_in_colour_otherwise():  # the check above can see colour
    output = app_output({"TERM": "xterm-256color"}, until=b"python_zip_sum")
    assert colour_escapes(output)
