"""``q`` while profiling: the app exits, the profiler's processes and temp folders go with it."""

from __future__ import annotations

import contextlib
import glob
import os
import pty
import select
import signal
import sys
import threading
import time

import pytest

from overhead_tui.engine.spawn import Cancel
from overhead_tui.plugins.scenarios import discover
from overhead_tui.profilers import profile as profile_module
from overhead_tui.profilers.profile import profile_scenario
from overhead_tui.profilers.registry import detect
from tests.conftest import RECORDED_SUMMARY, process_alive, wait_gone, wait_until

SLOW = 'echo $$ > "{pidfile}"; exec sleep 300'
"""A stand-in for a profiled worker that would run for five minutes; it says its pid first."""

APP = """
import sys
from overhead_tui.profilers import profile
profile.worker_command = lambda python, spec: ["sh", "-c", {slow!r}]
from overhead_tui.cli import main
sys.exit(main(["open", {summary!r}]))
"""


def wait_for_file(path, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


class PtyApp:
    """A Python program on a pseudo-terminal: read what it draws, send keys, wait for its end."""

    def __init__(self, argv, env):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(argv[0], argv, env)
        self.output = b""
        self.status = None

    def read(self, timeout=0.2):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the program closed the terminal
            return False
        self.output += chunk
        return bool(chunk)

    def wait_for(self, text, timeout=60.0):
        deadline = time.monotonic() + timeout
        while text not in self.output and time.monotonic() < deadline:
            if not self.read():
                break
        assert text in self.output, f"{text!r} never drawn"

    def wait_exit(self, timeout=60.0):
        """The exit status, or None if still running after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
                return status
        return None

    def close(self):
        if self.status is None:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


def test_q_while_profiling_exits_and_leaves_nothing(tmp_path):
    pidfile = tmp_path / "profiled.pid"
    temp = tmp_path / "tmp"
    temp.mkdir()
    script = APP.format(slow=SLOW.format(pidfile=pidfile), summary=str(RECORDED_SUMMARY))
    env = {**os.environ, "TMPDIR": str(temp), "TERM": "xterm-256color"}
    app = PtyApp([sys.executable, "-c", script], env)
    try:
        app.wait_for(b"python_zip_sum")
        os.write(app.fd, b"p")
        profiled = int(wait_for_file(pidfile))
        assert process_alive(profiled)
        os.write(app.fd, b"q")
        status = app.wait_exit(timeout=60)  # the stand-in would run for 300 s
        assert status is not None, "the app did not exit after q"
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert wait_gone(profiled, timeout=10)
        assert list(temp.iterdir()) == []
    finally:
        app.close()
        if pidfile.exists() and pidfile.read_text().strip():  # a failed test leaves nothing
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pidfile.read_text()), signal.SIGKILL)


def test_cancel_kills_the_running_command_and_skips_the_backends_after_it(tmp_path, monkeypatch):
    pidfile = tmp_path / "profiled.pid"
    slow = SLOW.format(pidfile=pidfile)
    monkeypatch.setattr(profile_module, "worker_command", lambda python, spec: ["sh", "-c", slow])
    spec = next(s for s in discover([]) if s.name == "python_naive")
    cancel = Cancel()
    results = []
    thread = threading.Thread(
        target=lambda: results.append(profile_scenario(spec, 8, cancel=cancel).to_json()),
        daemon=True,
    )
    thread.start()
    profiled = int(wait_for_file(pidfile))
    cancel.set()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert wait_gone(profiled, timeout=10)
    (result,) = results
    assert result["cancelled"] is True
    assert all(part["status"] != "ok" for part in result["backends"].values())


def _children(pid, marker):
    """Pids of the live children of ``pid`` whose command line holds ``marker``."""
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            with open(stat.replace("stat", "cmdline"), "rb") as fh:
                cmdline = fh.read().decode(errors="replace")
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and marker in cmdline:
            found.append(int(stat.split("/")[2]))
    return found


@pytest.mark.skipif(
    not all(c.ok for c in detect(("perf", "callgrind")).values()),
    reason="needs perf and valgrind (scripts/system-deps.sh installs them)",
)
def test_ctrl_c_in_the_profile_command_keeps_the_backends_that_finished(tmp_path):
    """Ctrl-C while the second backend runs: exit 130, the first backend's result printed and
    in the export (both were thrown away), the one it stopped said to be interrupted (not
    'failed' with valgrind's last line), the one after it said not to have run, and nothing
    left running."""
    import json
    import subprocess

    out = tmp_path / "p.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "overhead_tui", "profile", "python_naive", "--size", "24",
         "--duration", "0.5", "--backend", "perf", "--backend", "callgrind",
         "--backend", "scalene", "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:  # progress lines: the baseline, perf, then callgrind
        if "callgrind ..." in line:
            break
    (valgrind,) = wait_until(lambda: _children(proc.pid, "--tool=callgrind"), 60, "valgrind")
    proc.send_signal(signal.SIGINT)
    stdout, rest = proc.communicate(timeout=120)
    assert proc.returncode == 130, rest
    assert "perf: ok" in stdout and "Traceback" not in rest
    assert "the backends that finished are above" in rest
    stopped = stdout.split("\ncallgrind: ", 1)[1].split("\n\n")[0]  # its part, to the next
    assert stopped.startswith("interrupted (stopped by Ctrl-C"), stopped
    assert "\n" not in stopped and "==" not in stopped  # no valgrind line as the reason
    # Scalene was never started: not run, or unavailable where it could not run anyway
    scalene_ok = detect(("scalene",))["scalene"].ok
    later = "not run (interrupted before it started)" if scalene_ok else "unavailable"
    assert f"\nscalene: {later}" in stdout
    saved = json.loads(out.read_text())
    assert saved["cancelled"] is True and saved["backends"]["perf"]["status"] == "ok"
    assert saved["backends"]["callgrind"]["status"] == "interrupted"
    assert saved["backends"]["callgrind"]["reason"].startswith("stopped by Ctrl-C")
    if scalene_ok:
        assert saved["backends"]["scalene"]["status"] == "not run"
        assert saved["backends"]["scalene"]["reason"] == "interrupted before it started"
    assert wait_gone(valgrind, timeout=10)
