"""Shared fixtures: paths, a CLI runner, a recorded summary, and private user folders.

Every test, and every process it starts, sees its own cache, data, config and state folders
(``XDG_*_HOME`` in a temporary folder): the suite never reads or writes the user's
``~/.cache`` or ``~/.local/share``, and a cold machine behaves like a warm one because the probe
cache there is seeded with a recorded run's probe values (a run reads them instead of spending
a minute measuring).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
FAULTY = FIXTURES / "faulty"
RECORDED_SUMMARY = FIXTURES / "recorded_summary.json"
"""A real run of the default ladder (schema version 2, with probes and breakdowns)."""
RECORDED_SUMMARY_V3 = FIXTURES / "recorded_summary_v3.json"
"""A real run of the default ladder (schema version 3, with the machine's measured limits)."""
SUMMARY_V1 = FIXTURES / "summary_v1.json"
"""A real run saved by schema version 1 (no probes, counts or breakdowns)."""
SWEEP_SUMMARY = FIXTURES / "sweep_summary.json"
"""A real ``overhead-tui sweep`` (default scenarios and sizes; python_naive stopped early by
its budget)."""
SHAPES_SUMMARY = FIXTURES / "shapes_summary.json"
"""A recorded ``overhead-tui shapes`` (k = n = 512, fake probes: 5 GB/s, 20 GFLOP/s one core)."""


@functools.cache
def _read_fixture(path: Path):
    from overhead_tui.summary.records import RunSummary

    return RunSummary.load(path)


def fixture_summary(path: Path = RECORDED_SUMMARY):
    """A fresh copy of the fixture summary at ``path`` (a ``RunSummary``).

    The file is read and checked against the schema once per test process (``RunSummary.load``
    of the recorded run takes about 0.1 s, most of it the schema check) and deep-copied for each
    caller (about 0.01 s), so a test may change its copy.  Tests of loading itself call
    ``RunSummary.load``.
    """
    return copy.deepcopy(_read_fixture(Path(path)))


def remeasured(summary, name: str, **fields: Any):
    """Put in ``summary`` a copy of scenario ``name``'s record with these measured ``fields``
    (a test's made-up measurement) and return it: a loaded record is sealed
    (``ScenarioResult.seal``), so a test replaces it as a new run would."""
    at = next(i for i, s in enumerate(summary.scenarios) if s.name == name)
    summary.scenarios[at] = dataclasses.replace(summary.scenarios[at], **fields)
    return summary.scenarios[at]


def scenario_result(
    name: str = "r",
    *,
    layers: Iterable[str] = (),
    n: int = 10,
    ns_per_fma: float | None = None,
    iqr_ns: float | None = None,
    **fields: Any,
):
    """A made-up ``ScenarioResult`` named (and titled) ``name`` of order ``n``: float64,
    2·n³ flops, rung 1, no layer removed, unless ``fields`` (any other of its fields) say
    otherwise.

    With ``ns_per_fma`` it is ``ok`` with that median per multiply-add, its one sample, and
    with ``iqr_ns`` an IQR of that much per multiply-add.
    """
    from overhead_tui.summary.records import ScenarioResult

    fmas = n**3
    measured: dict[str, Any] = {}
    if ns_per_fma is not None:
        median_s = ns_per_fma * 1e-9 * fmas
        measured = {"status": "ok", "median_s": median_s, "samples_s": [median_s]}
        if iqr_ns is not None:
            measured["iqr_s"] = iqr_ns * 1e-9 * fmas
    chosen = {"title": name, "rung": 1, "removes": [], "flops": 2 * fmas, **measured, **fields}
    return ScenarioResult(name=name, layers=list(layers), n=n, dtype="float64", **chosen)


def scenario_declarations(
    name: str,
    rung: int,
    layers: Iterable[str],
    title: str = "fixture",
    default_size: int = 8,
    max_size: int = 64,
) -> str:
    """The lines that open a scenario file a test writes: its NAME, TITLE, RUNG, LAYERS
    (none removed), sizes and float64 alone (the functions or SOURCE follow)."""
    declared = {
        "NAME": name,
        "TITLE": title,
        "RUNG": rung,
        "LAYERS": tuple(layers),
        "REMOVES": (),
        "DEFAULT_SIZE": default_size,
        "MAX_SIZE": max_size,
        "DTYPES": ("float64",),
    }
    return "".join(f"{key} = {value!r}\n" for key, value in declared.items())


def rendered_text(renderable: object, width: int = 200) -> str:
    """What Rich prints for ``renderable`` (e.g. a Static's ``content``) at ``width`` columns,
    as plain text."""
    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def refuses_silent_interpreter(folder: Path, check, match: str) -> None:
    """Assert that ``check`` (called with its path) refuses an interpreter that never answers
    (:func:`silent_interpreter` in ``folder``) with a UsageError matching ``match``, and
    leaves nothing it started behind."""
    from overhead_tui.errors import UsageError

    fake, pidfile = silent_interpreter(folder)
    with pytest.raises(UsageError, match=match):
        check(str(fake))
    assert child_gone(pidfile), f"the interpreter's child process outlived {check.__name__}()"


def unrunnable_file(folder: Path) -> Path:
    """An executable ``python`` in ``folder`` that is not a program (garbage bytes)."""
    junk = folder / "python"
    junk.write_bytes(b"garbage")
    junk.chmod(0o755)
    return junk


FAST = ["--size", "8", "--repeats", "2", "--min-time", "0.001", "--no-probes"]
"""Options that make a run take well under a second per scenario."""


def run_cli(
    *args: str | Path, timeout: float = 300, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m overhead_tui ARGS`` and capture its output (text); ``env`` sets
    variables on top of this process's environment."""
    return subprocess.run(
        [sys.executable, "-m", "overhead_tui", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **env} if env else None,
    )


def start_cli(*args: str | Path, **popen: object) -> subprocess.Popen[str]:
    """Start ``python -m overhead_tui ARGS`` (text; stdout and stderr piped, stdin closed,
    unless ``popen`` says otherwise) and return the running process."""
    options: dict[str, object] = {
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "stdin": subprocess.DEVNULL,
        "text": True,
        **popen,
    }
    command = [sys.executable, "-m", "overhead_tui", *map(str, args)]
    return subprocess.Popen(command, **options)


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs; a zombie (exited, not yet reaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, timeout: float = 120.0, what: str = "the condition", interval=0.05):
    """Poll ``condition()`` until it returns something true, and return that.

    For waits on events outside the test (a file appearing, a line in a log, a process
    exiting): the limit is generous because a loaded machine is slow, and only a fault
    reaches it.  Raises AssertionError naming ``what`` when ``timeout`` seconds pass.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        time.sleep(interval)


def wait_gone(pid: int, timeout: float = 60.0) -> bool:
    """Wait until ``pid`` is gone (see :func:`process_alive`); True if it went in time.

    The limit is generous on purpose: a loaded machine can take seconds to reap a process; a
    process that should have been killed and was not outlives it by far.
    """
    try:
        return wait_until(lambda: not process_alive(pid), timeout, interval=0.02)
    except AssertionError:
        return False


def silent_interpreter(folder: Path) -> tuple[Path, Path]:
    """A fake ``python`` in ``folder`` that never answers: it starts ``sleep 1000`` in the
    background and waits for it.  Returns (its path, the file it writes the sleep's pid to)."""
    pidfile = folder / "child.pid"
    fake = folder / "python"
    fake.write_text(f"#!/bin/sh\nsleep 1000 &\necho $! > {pidfile}\nwait\n")
    fake.chmod(0o755)
    return fake, pidfile


def child_gone(pidfile: Path) -> bool:
    """Whether the process named in ``pidfile`` went (see :func:`wait_gone`); one that did not
    is killed, so a failing test leaves nothing behind."""
    child = int(pidfile.read_text())
    gone = wait_gone(child, timeout=10)
    if not gone:
        os.kill(child, signal.SIGKILL)
    return gone


USER_DIR_VARIABLES = ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")
"""The folders platformdirs derives the user cache, data (runs), config and state paths from."""


def seed_probe_cache(cache: Path, recorded: Path = RECORDED_SUMMARY_V3) -> Path:
    """Write the probe cache file ``cache`` with the probe values of the recorded run.

    Written with the project's own :func:`overhead_tui.engine.probe_runs.write_cache` under the
    key a run computes on this machine for this interpreter
    (:func:`overhead_tui.engine.probe_runs.cache_key`), so a run or ``machine`` reads these values
    instead of measuring the probes.  Returns ``cache``.
    """
    from overhead_tui.engine.probe_runs import cache_key, write_cache
    from overhead_tui.plugins.probes import discover_probes
    from overhead_tui.summary.probes import probe_records

    probes = json.loads(recorded.read_text(encoding="utf-8"))["probes"]
    results = probe_records(probes)
    write_cache(cache_key(discover_probes(), sys.executable), results, cache)
    return cache


def shared_build_cache(cache_home: Path, basetemp: Path) -> None:
    """Let the session's xdist workers share one build cache (the C rungs, the Cython, mypyc
    and Pythran modules, the loop-nest counts): ``overhead-tui/cbuild`` under ``cache_home`` is
    a link to one folder beside the workers' temporary folders.  The cache is made for
    concurrent builders (each builds in its own folder and moves the result in with one
    ``os.replace``), so a module is compiled once a session instead of once a worker.  Without
    xdist (one process) there is nothing to share."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    shared = basetemp.parent / "shared-build-cache"
    shared.mkdir(exist_ok=True)
    link = cache_home / "overhead-tui" / "cbuild"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(shared, target_is_directory=True)


def share_session_builds(cache_home: Path) -> None:
    """Give a test's own cache folder ``cache_home`` (an empty probe cache, a cold start) the
    session's build cache (:func:`shared_build_cache`), so the modules a cold start builds
    first are built once a session, not once a test; nothing where the session has none."""
    shared = Path(os.environ["XDG_CACHE_HOME"]) / "overhead-tui" / "cbuild"
    if shared.exists():
        (cache_home / "overhead-tui").mkdir(parents=True, exist_ok=True)
        (cache_home / "overhead-tui" / "cbuild").symlink_to(shared.resolve())


@pytest.fixture(scope="session", autouse=True)
def private_user_dirs(tmp_path_factory):
    """Point the XDG folders at a temporary folder for the whole session (tests and their
    subprocesses inherit the environment) and seed the probe cache there.

    Yields (the seeded probe cache file, its content).  Each xdist worker has its own folders,
    but one build cache (:func:`shared_build_cache`).
    """
    from overhead_tui.engine.probe_runs import cache_path

    root = tmp_path_factory.mktemp("user-dirs")
    with pytest.MonkeyPatch.context() as patch:
        for variable in USER_DIR_VARIABLES:
            patch.setenv(variable, str(root / variable.lower()))
        shared_build_cache(root / "xdg_cache_home", tmp_path_factory.getbasetemp())
        cache = seed_probe_cache(cache_path())
        yield cache, cache.read_bytes()


@pytest.fixture(autouse=True)
def seeded_probe_cache(private_user_dirs):
    """The seeded probe cache file, restored before each test (an earlier one may change it)."""
    cache, content = private_user_dirs
    try:
        current = cache.read_bytes()
    except OSError:
        current = None
    if current != content:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_bytes(content)
    return cache


@pytest.fixture
def cli():
    """The CLI runner."""
    return run_cli
