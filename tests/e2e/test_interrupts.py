"""Ctrl-C stops every long command at once: exit 130, no worker left behind, and nothing
finished or cached is overwritten by a partial result."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import FIXTURES, share_session_builds
from tests.e2e.test_cold_start import _children_of


@pytest.mark.parametrize(
    ("argv", "first"),
    [
        (["probes", "--refresh"], "measuring "),
        (["machine"], "measuring "),
        (
            ["profile", "fast_python", "--size", "8", "--scenarios-dir", str(FIXTURES / "fast")],
            "profiling ",
        ),
    ],
    ids=["probes --refresh", "machine (cold probes)", "profile"],
)
def test_ctrl_c_stops_the_command_at_once(argv, first, tmp_path):
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "XDG_DATA_HOME": str(tmp_path / "d")}
    cached = cache / "overhead-tui" / "probes.json"
    share_session_builds(cache)  # the probes' modules, built before they are measured
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_text("{}")  # an older cache that must survive the interrupted refresh
    process = subprocess.Popen(
        [sys.executable, "-m", "overhead_tui", *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # blocks until the command is at work
        while line and not line.startswith(first):
            line = process.stderr.readline()
        assert line.startswith(first), "the command ended before it said what it measures"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)
    assert process.returncode == 130
    assert not _children_of(process.pid)
    assert cached.read_text() == "{}"


def test_ctrl_c_in_doctor_exits_130(monkeypatch, capsys):
    from overhead_tui.cli import main
    from overhead_tui.commands import doctor

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(doctor, "detect", interrupted)
    assert main(["doctor"]) == 130
    assert "interrupted" in capsys.readouterr().err
