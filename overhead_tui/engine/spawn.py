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
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

import overhead_tui
from overhead_tui.engine.folders import WORKER_CACHE_ENV, user_cache_dir
from overhead_tui.engine.protocol import Error, Message, WorkerSpec
from overhead_tui.engine.run_log import parse_event_line

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
    events: list[Message] = field(default_factory=list)
    """The worker's messages found in stdout (a profiler may print there too)."""
    cancelled: bool = False
    """Stopped (or never started) because its :class:`Cancel` was set."""
    start_error: str | None = None
    """Why the command could not be started (``Exec format error`` ...), if it could not."""

    def event(self, kind: type[M]) -> M | None:
        """The last message of record type ``kind`` (``protocol.Profiled`` ...), if any."""
        return next((e for e in reversed(self.events) if isinstance(e, kind)), None)

    @property
    def worker_error(self) -> str | None:
        """The worker's own error message, if it reported one."""
        error = self.event(Error)
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


def wait_exited(process: subprocess.Popen[Any], seconds: float) -> bool:
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
    """Stops :func:`run_command` calls from another thread: :meth:`set` kills the process
    group of every command running under it, and later calls return at once (``cancelled``)."""

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


class Stoppable:
    """A run driven in one thread and stopped from another: :meth:`cancel` sets
    ``cancelled``, kills the probe commands under ``_commands`` and, holding ``_lock``, what
    runs now (:meth:`_stop_current`, which a subclass defines)."""

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self._commands = Cancel()
        """Stops the probe workers (``run_command``) when the run is cancelled."""
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop: kill the running worker's (or probe's) process group; nothing later starts."""
        self._cancel.set()
        self._commands.set()
        with self._lock:
            self._stop_current()

    def _stop_current(self) -> None:
        """Stop the worker running now (called holding ``_lock``)."""


def worker_command(python: str, spec: WorkerSpec) -> list[str]:
    """The argv of a worker for ``spec`` (see ``engine.worker``)."""
    return [python, "-m", "overhead_tui.engine.worker", spec.to_json()]


def package_dir() -> Path:
    """The folder of this very ``overhead_tui`` package (symlinks resolved)."""
    return Path(overhead_tui.__file__).resolve().parent


def worker_path_dir(package: Path | None = None) -> Path:
    """A folder holding only ``overhead_tui`` (a symlink to ``package``), for ``PYTHONPATH``.

    The parent folder of the package cannot go on a worker's path: in an installed wheel it is
    the tool's whole site-packages, whose numpy and BLAS would shadow the target interpreter's
    own (or fail to load in another Python version).  The folder is per package location
    (``user cache dir / workerpath / HASH``), created atomically and reused; when the cache dir
    is not writable, this user's private temporary cache is used.
    """
    from overhead_tui.engine.folders import private_temp_cache

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


def run_command(
    argv: list[str],
    timeout_s: float,
    env: dict[str, str] | None = None,
    cancel: Cancel | None = None,
) -> CommandResult:
    """Run ``argv`` in a new session; when it exits, or after ``timeout_s`` seconds, SIGKILL
    its whole process group (whatever it started ends with it), then collect its output.

    Never raises for the command's own failure: a missing executable gives returncode 127.
    ``cancel`` (also :func:`cancel_scope`'s, when not given) kills it from another thread.
    """
    cancel = cancel or _SCOPE.cancel
    if cancel is not None and cancel.is_set():
        return CommandResult(None, False, "", "cancelled", cancelled=True)
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
    except OSError as exc:
        return CommandResult(127, False, "", str(exc), start_error=exc.strerror or str(exc))
    assert process.stdout is not None and process.stderr is not None
    readers = [_Reader(process.stdout), _Reader(process.stderr)]
    if cancel is not None:
        cancel._add(process)
    try:
        timed_out = not wait_exited(process, timeout_s)
    except BaseException:  # Ctrl-C or SIGTERM: take the profiler and the worker down too
        kill_group(process)
        process.kill()
        process.wait()
        raise
    finally:
        if cancel is not None:
            cancel._discard(process)
    kill_group(process)
    returncode = process.wait()
    # a child that left the group may still hold the pipes: do not wait long for it
    out, err = (reader.result(DRAIN_S) for reader in readers)
    stdout = out[:OUTPUT_CAP_BYTES].decode("utf-8", "replace")
    stderr = err[-OUTPUT_CAP_BYTES:].decode("utf-8", "replace")
    events = [e for e in map(parse_event_line, stdout.splitlines()) if e is not None]
    cancelled = cancel is not None and cancel.is_set()
    return CommandResult(returncode, timed_out, stdout, stderr, events, cancelled)


class _Reader:
    """Read a pipe to its end in a daemon thread (so neither pipe can fill and block)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
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


class _Scope(threading.local):
    cancel: Cancel | None = None


_SCOPE = _Scope()
"""The :class:`Cancel` of :func:`cancel_scope` in this thread, if any."""


@contextlib.contextmanager
def cancel_scope(cancel: Cancel | None) -> Iterator[None]:
    """Inside, every :func:`run_command` of this thread runs under ``cancel`` (the profiler
    backends call it several times; they need not pass it along)."""
    previous, _SCOPE.cancel = _SCOPE.cancel, cancel
    try:
        yield
    finally:
        _SCOPE.cancel = previous
