"""Start worker processes (their command and environment) and run commands with a timeout,
output capped.  Used by the runner, the probes and the profilers alike.

A command's whole process group ends with it, on every outcome: once its leader exits (or
times out) the group is killed *before* the leader is reaped, so the group id cannot have
been reused by then (see :func:`wait_exited`), and a child it left behind (a scenario's
``setup`` that started a process) does not outlive it.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TypeVar, cast

from overhead_tui.engine.interrupts import recording_start
from overhead_tui.engine.package import package_dir
from overhead_tui.engine.run_log import parse_message_line
from overhead_tui.kit.folders import WORKER_CACHE_ENV, user_cache_dir
from overhead_tui.worker.protocol import Done, Error, Message, WorkerTask

M = TypeVar("M", bound=Message)

DRAIN_S = 5.0
"""Seconds to collect output after a command's process group was killed (a child that left
the group may hold the pipes open)."""
OUTPUT_CAP_BYTES = 1_000_000
"""Largest stdout or stderr kept from a profiler run (bytes); the rest is dropped."""


@dataclass
class CommandResult:
    """What a profiled run produced."""

    returncode: int | None
    timed_out: bool
    stdout: str
    stderr: str
    messages: list[Message] = field(default_factory=list)
    """The worker's messages found in stdout (a profiler may print there too)."""
    cancelled: bool = False
    """Stopped (or never started) because its :class:`Cancel` was set."""
    start_error: str | None = None
    """Why the command could not be started (``Exec format error`` ...), if it could not."""

    def message(self, record: type[M]) -> M | None:
        """The last message of record type ``record`` (``protocol.Profiled`` ...), if any."""
        return next((m for m in reversed(self.messages) if isinstance(m, record)), None)

    @property
    def worker_error(self) -> str | None:
        """The worker's own error message, if it reported one."""
        error = self.message(Error)
        return error.message if error else None


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``process``'s whole group (it leads its own session); nothing once it was
    reaped, as its group id may then belong to someone else."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


WAIT_POLL_S = 0.01
"""Seconds between checks while waiting for a process to exit without reaping it."""


def wait_exited(process: subprocess.Popen[bytes] | subprocess.Popen[str], seconds: float) -> bool:
    """Wait up to ``seconds`` for ``process`` to exit, *without reaping it*.

    An exited but unreaped process is a zombie: its pid, and so the id of the process group it
    leads, cannot be reused, so its group can still be killed safely.  True if it exited (or
    was already reaped), False if it still runs after ``seconds``.
    """
    deadline = time.monotonic() + seconds
    while True:
        if process.returncode is not None:
            return True
        try:
            info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        except ChildProcessError:  # reaped by someone else
            return True
        if info is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(WAIT_POLL_S)


class Cancel:
    """The one cancellation of the tool: a run, a sweep, the probes or a profile, stopped
    from another thread (or a signal handler).  :meth:`set` kills the process group of every
    :class:`Child` started under it, and later ones do not start (``cancelled``)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()

    def set(self) -> None:
        """Cancel: SIGKILL the running commands' process groups; refuse new ones."""
        with self._lock:
            self._event.set()
            for process in self._running:
                kill_group(process)

    def is_set(self) -> bool:
        """True once :meth:`set` was called."""
        return self._event.is_set()

    def _add(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.add(process)
            if self._event.is_set():  # set between the check and the start
                kill_group(process)

    def _discard(self, process: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._running.discard(process)


class RunControl:
    """How another thread (or a signal handler) stops a ladder run or a sweep: ``cancel()``
    and ``cancelled`` over the run's one :class:`Cancel`, its ``cancellation``."""

    cancellation: Cancel

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called (here or on the shared ``cancellation``)."""
        return self.cancellation.is_set()

    def cancel(self) -> None:
        """Stop: kill the running worker's (or probe's) process group; nothing later starts."""
        self.cancellation.set()


def worker_command(python: str, task: WorkerTask) -> list[str]:
    """The argv of a worker for ``task``: ``python -m overhead_tui.worker TASK_JSON``
    (``worker.__main__``, which runs ``worker.main.main``)."""
    return [python, "-m", "overhead_tui.worker", task.to_json()]


def worker_path_dir(package: Path | None = None) -> Path:
    """A folder holding only ``overhead_tui`` (a symlink to ``package``), for ``PYTHONPATH``.

    The parent folder of the package cannot go on a worker's path: in an installed wheel it is
    the tool's whole site-packages, whose numpy and BLAS would shadow the target interpreter's
    own (or fail to load in another Python version).  The folder is per package location
    (``user cache dir / workerpath / HASH``), created atomically and reused; when the cache dir
    is not writable, this user's private temporary cache is used.
    """
    from overhead_tui.kit.folders import private_temp_cache

    package = (package or package_dir()).resolve()
    digest = hashlib.sha256(str(package).encode()).hexdigest()[:16]
    error: OSError | None = None
    for base in (user_cache_dir(), None):
        try:
            if base is None:  # not writable: the private temporary cache (mode 0700, ours)
                temp = private_temp_cache()
                if temp is None:
                    break
                base = temp / "overhead-tui"
            folder = base / "workerpath" / digest
            link = folder / "overhead_tui"
            if os.path.islink(link) and os.readlink(link) == str(package):
                return folder
            folder.mkdir(parents=True, exist_ok=True)
            staging = folder / f".overhead_tui.{os.getpid()}.{threading.get_ident()}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staging)
            os.symlink(package, staging, target_is_directory=True)
            os.replace(staging, link)  # atomic: a concurrent worker sees the old or the new link
            return folder
        except OSError as exc:
            error = exc
    raise OSError(f"cannot create a folder for the workers' PYTHONPATH: {error}")


def worker_env() -> dict[str, str]:
    """The environment for a worker: this very package importable from any interpreter, and
    nothing else of the tool's own installation.

    ``PYTHONPATH`` starts with :func:`worker_path_dir` (only ``overhead_tui`` in it), so the
    worker imports numpy, threadpoolctl, numba ... from its own interpreter's site-packages.
    ``python -m`` puts the current directory first on ``sys.path``, so a folder holding another
    checkout (or anything named ``overhead_tui``) would shadow this package in the worker;
    ``PYTHONSAFEPATH=1`` (Python ≥ 3.11) keeps it off.
    """
    env = dict(os.environ)
    folder = str(worker_path_dir())
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [folder, env.get("PYTHONPATH")]))
    env["PYTHONSAFEPATH"] = "1"
    env[WORKER_CACHE_ENV] = str(user_cache_dir())
    return env


def same_interpreter(requested: str, reported: str) -> bool:
    """True when a worker started as ``requested`` that reports ``sys.executable`` ==
    ``reported`` runs the requested interpreter *with its packages*.

    The paths may differ in spelling (``/usr/bin/python3`` is ``python3.11``) but not in the
    environment: a venv's ``bin/python`` is a symlink to its base interpreter, the same file
    with other site-packages, so the venv each path belongs to (a ``pyvenv.cfg`` next to it or
    one folder up, as Python itself looks) must match too.
    """
    if os.path.normpath(requested) == os.path.normpath(reported):
        return True
    return os.path.realpath(requested) == os.path.realpath(reported) and venv_root(
        requested
    ) == venv_root(reported)


def venv_root(executable: str) -> str | None:
    """The venv folder ``executable`` belongs to (holding ``pyvenv.cfg``), or None."""
    folder = os.path.dirname(os.path.abspath(executable))
    for candidate in (folder, os.path.dirname(folder)):
        if os.path.isfile(os.path.join(candidate, "pyvenv.cfg")):
            return os.path.normpath(candidate)
    return None


class Child:
    """The one way this tool runs a process: every worker (rungs, probes, profilers, sweep
    points) and every helper command goes through it.

    ``start()`` spawns ``argv`` in its own session (so its whole group can be killed) with
    stdin closed, and registers it with ``cancel`` (whose :meth:`Cancel.set` kills it from any
    thread); :meth:`messages` reads its stdout as it comes and yields the worker messages in
    it, blocked in ``select`` on the pipe and the process (a pidfd) — no polling; ``finish()``
    kills the group *before* reaping the leader (the group id cannot have been reused then),
    reaps it and returns the :class:`CommandResult`.  Use it as a context manager: leaving the
    block, even by Ctrl-C, kills the group and reaps.

    Args:
        argv: the command.
        env: its environment (None: this process's).
        stderr: a file to append its stderr to (a worker's log), else it is captured.
        cancel: stops it from another thread.
        clock: seconds, for the deadline (injectable for tests).
    """

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        stderr: IO[bytes] | None = None,
        cancel: Cancel | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.argv, self.env, self.cancel, self.clock = argv, env, cancel, clock
        self._stderr_file = stderr
        self.process: subprocess.Popen[bytes] | None = None
        self.start_error: str | None = None
        self.timed_out = False
        self._stdout = bytearray()
        self._stderr: _Reader | None = None
        self._pidfd: int | None = None
        self.messages_seen: list[Message] = []

    def start(self) -> bool:
        """Spawn it; False when cancelled before or when it cannot start (``start_error``)."""
        if self.cancel is not None and self.cancel.is_set():
            return False
        try:
            with recording_start():
                self.process = subprocess.Popen(
                    self.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=self._stderr_file or subprocess.PIPE,
                    env=self.env,
                    start_new_session=True,
                )
        except OSError as exc:
            self.start_error = exc.strerror or str(exc)
            return False
        if self._stderr_file is None:
            assert self.process.stderr is not None
            self._stderr = _Reader(self.process.stderr)
        with contextlib.suppress(AttributeError, OSError):  # pidfds: Linux ≥ 5.3
            self._pidfd = os.pidfd_open(self.process.pid)
        if self.cancel is not None:
            self.cancel._add(self.process)
        return True

    def messages(self, timeout_s: float, until_final: bool = False) -> Iterator[Message]:
        """The worker messages its stdout carries, as they come, until the pipe closes or the
        leader exits (then what is left within :data:`DRAIN_S`), ``until_final``: its
        ``done`` or ``error`` message (a child the worker started may hold the pipe open), or
        ``timeout_s`` (then ``timed_out``)."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        deadline = self.clock() + timeout_s
        buffer = b""
        exited_at: float | None = None
        while True:
            now = self.clock()
            if exited_at is None and now >= deadline:
                self.timed_out = True
                return
            limit = deadline - now if exited_at is None else exited_at + DRAIN_S - now
            if limit <= 0:
                return
            watched = [fd] + (
                [self._pidfd] if self._pidfd is not None and exited_at is None else []
            )
            ready, _, _ = select.select(watched, [], [], limit)
            if self._pidfd is not None and self._pidfd in ready:
                exited_at = self.clock()  # drain what it wrote, but not for a stray child
            if fd not in ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return
            if len(self._stdout) < OUTPUT_CAP_BYTES:
                self._stdout += chunk[: OUTPUT_CAP_BYTES - len(self._stdout)]
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                message = parse_message_line(line)
                if message is None:
                    continue
                self.messages_seen.append(message)
                yield message
                if until_final and isinstance(message, Done | Error):
                    return

    def stop(self) -> None:
        """Kill its process group now (from any thread); ``finish()`` still reaps it."""
        if self.process is not None:
            kill_group(self.process)

    def finish(self, grace_s: float, late_is_timeout: bool = False) -> CommandResult:
        """Wait up to ``grace_s`` for the leader to exit (not after a timeout; still running
        then is ``timed_out`` when ``late_is_timeout``), kill the group, reap, and collect
        what it wrote."""
        if self.process is None:
            cancelled = self.start_error is None
            return CommandResult(
                None if cancelled else 127,
                False,
                "",
                "cancelled" if cancelled else str(self.start_error),
                cancelled=cancelled,
                start_error=self.start_error,
            )
        if not self.timed_out:  # not reaped: the group id stays the worker's until killed
            self._wait(grace_s)
            self.timed_out = late_is_timeout and not self._exited()
        self._close()
        err = self._stderr.result(DRAIN_S) if self._stderr is not None else b""
        return CommandResult(
            self.process.returncode,
            self.timed_out,
            self._stdout.decode("utf-8", "replace"),
            err[-OUTPUT_CAP_BYTES:].decode("utf-8", "replace"),
            list(self.messages_seen),
            self.cancel is not None and self.cancel.is_set(),
        )

    def _exited(self) -> bool:
        assert self.process is not None
        return wait_exited(self.process, 0.0)

    def _wait(self, seconds: float) -> None:
        assert self.process is not None
        if self._pidfd is None:
            wait_exited(self.process, seconds)
        elif self.process.returncode is None:
            select.select([self._pidfd], [], [], seconds)

    def _close(self) -> None:
        """Kill the group, reap the leader, forget it (safe to call twice)."""
        assert self.process is not None
        kill_group(self.process)  # whatever it started ends with it, on every outcome
        self.process.wait()
        if self.cancel is not None:
            self.cancel._discard(self.process)
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.returncode is None:
            self._close()


def run_command(
    argv: list[str],
    timeout_s: float,
    env: dict[str, str] | None = None,
    cancel: Cancel | None = None,
) -> CommandResult:
    """Run ``argv`` to its end through :class:`Child`; after ``timeout_s`` seconds, or when it
    exits, its whole process group is killed, then its output collected (stdout and stderr
    capped at :data:`OUTPUT_CAP_BYTES`, its worker messages parsed).

    Never raises for the command's own failure: a missing executable gives returncode 127.
    ``cancel`` kills it from another thread.
    """
    child = Child(argv, env, cancel=cancel)
    began = time.monotonic()
    with child:
        if child.start():
            for _ in child.messages(timeout_s):
                pass
        left = max(0.0, timeout_s - (time.monotonic() - began))
        return child.finish(left, late_is_timeout=True)


class _Reader:
    """Read a pipe to its end in a daemon thread (so neither pipe can fill and block)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = cast(io.BufferedReader, pipe)  # subprocess's pipes are buffered
        self._chunks: list[bytes] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self._pipe.read1(65536):
                self._chunks.append(chunk)

    def result(self, seconds: float) -> bytes:
        """What was read when the pipe ended, or after ``seconds`` (bytes)."""
        self._thread.join(seconds)
        return b"".join(list(self._chunks))
