"""A cold start (no probe cache) says which probe runs, how many remain, and keeps going."""

from __future__ import annotations

import os
import signal
import subprocess

from tests.conftest import FIXTURES, share_session_builds, start_cli


def test_cli_shows_probe_progress_on_a_cold_cache(tmp_path):
    """An empty probe cache: the probes' modules are built first (from the session's shared
    build cache, where another test built them), then the probes are measured, each said."""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    share_session_builds(tmp_path / "cache")
    process = start_cli(
        "run",
        "--scenarios-dir",
        str(FIXTURES / "fast"),
        "--scenario",
        "fast_python",
        "--size",
        "8",
        "--out",
        str(tmp_path / "run"),
        stdout=subprocess.DEVNULL,
        env=env,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()  # blocks until the first line (or the end)
        assert first.startswith("preparing the modules the run compiles"), first
        while (line := process.stderr.readline()).startswith("preparing "):
            pass  # one line per module (\r-separated on a terminal, here lines)
        assert line.startswith("measuring ") and "once per machine and interpreter" in line
        assert process.stderr.readline().startswith("probe 1/")  # while the first is measured
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)
    assert process.returncode == 130
    # the probe worker that was measuring is killed with the run, not left to finish
    assert not _children_of(process.pid)


def _children_of(pid: int) -> list[str]:
    """Command lines of live workers started by ``pid`` (they carry ``parent_pid``)."""
    import glob

    from tests.conftest import wait_gone

    found = []
    for path in glob.glob("/proc/[0-9]*/cmdline"):
        try:
            with open(path, "rb") as fh:
                cmd = fh.read().decode(errors="replace")
        except OSError:
            continue
        if f'"parent_pid": {pid}' in cmd:
            child = int(path.split("/")[2])
            if not wait_gone(child, timeout=10):
                found.append(cmd)
    return found
