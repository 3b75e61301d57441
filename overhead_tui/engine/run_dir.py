"""The run directory: where it goes, what a run writes in it, and who owns it.

One home for its layout (:data:`RUN_FILES`), its place (:func:`default_runs_dir`, a new
``YYYYmmdd-HHMMSS-PID`` folder under it or under ``--out``), its lock (one run per folder:
an ``fcntl.flock`` on ``run.lock``, held for the life of the process) and the checks made
before anything is measured (:func:`prepare_run_dir`, :func:`resolve_runs_parent`, and the
refusal of an export that would replace a run's own file).
"""

from __future__ import annotations

import fcntl
import os
from datetime import datetime
from pathlib import Path

from overhead_tui.errors import UsageError
from overhead_tui.kit.folders import writable_problem
from overhead_tui.summary.records import SUMMARY_FILE, RunSummary
from overhead_tui.summary.validation import SummaryError

LOCK_NAME = "run.lock"
"""The lock file inside a run directory (holds the owning process's pid)."""
LOG_FILE = "log.jsonl"
"""Every worker message of the run, one JSON line each (``engine.run_log``)."""
LOGS_DIR = "logs"
"""Each worker's stderr, ``NAME.stderr.txt``."""
POINTS_DIR = "points"
"""A sweep's run directory per point."""
_held: dict[Path, int] = {}
"""Run directories locked by this process: resolved path -> the lock file's descriptor."""


RUN_FILES = frozenset({SUMMARY_FILE, LOG_FILE, LOGS_DIR, LOCK_NAME, POINTS_DIR})
"""What a run writes in its directory (a folder holding anything else is not a run's)."""


def prepare_run_dir(out: Path | None, as_parent: bool = False) -> Path:
    """Create the run directory: ``out`` itself, or a new one under ``out`` / the default;
    check it is writable and take its lock (one run per directory) before anything runs.

    Raises:
        UsageError: ``out`` is a file, already holds a run, is in use by another run, or
            cannot be created or written (naming the folder and the option or variable
            that moves it).
    """
    if out is None or as_parent:
        parent = resolve_runs_parent(out)
        try:
            return new_run_dir(parent)
        except OSError as exc:
            raise _cannot_create_in(parent, out, exc.strerror or str(exc)) from None
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file; fix: give a folder for the run")
    if out.is_dir() and (problem := writable_problem(out)) is not None:
        raise UsageError(
            f"cannot write the run folder {out}: {problem}; fix: give --out a writable folder"
        )
    foreign = (
        sorted(p.name for p in out.iterdir() if p.name not in RUN_FILES) if out.exists() else []
    )
    if foreign and not (out / "summary.json").exists():
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise UsageError(
            f"--out {out} is a folder with other files in it ({shown}); fix: give a new or "
            "empty folder for the run (a run writes summary.json, log.jsonl and logs/ there)"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the run folder {out}: {exc.strerror or exc}; "
            "fix: give --out a folder that can be created"
        ) from None
    try:
        holder = lock_run_dir(out)
    except OSError as exc:
        raise UsageError(
            f"cannot write the run folder {out}: {exc.strerror or exc}; "
            "fix: give --out a writable folder"
        ) from None
    if holder is not None:
        by = f" (pid {holder})" if holder else ""
        raise UsageError(
            f"--out {out} is in use by another run{by}; fix: give each run its own --out "
            "folder, or wait for that run to finish"
        )
    if (out / "summary.json").exists():
        raise UsageError(f"--out {out} already holds a run; fix: choose a new folder")
    problem = writable_problem(out)
    if problem is not None:
        raise UsageError(
            f"cannot write the run folder {out}: {problem}; fix: give --out a writable folder"
        )
    return out


def resolve_runs_parent(out: Path | None) -> Path:
    """The folder new run directories go in (``out``, else the default under the user data
    dir), created and checked writable.

    Raises:
        UsageError: it cannot be created or written, naming it and what moves it.
    """
    parent = out if out is not None else default_runs_dir()
    problem = writable_problem(parent)
    if problem is not None:
        raise _cannot_create_in(parent, out, problem)
    return parent


def _cannot_create_in(parent: Path, out: Path | None, problem: str) -> UsageError:
    fix = (
        "fix: give --out a writable folder"
        if out is not None
        else "fix: give --out DIR, or set XDG_DATA_HOME to a writable folder"
    )
    return UsageError(f"cannot create a run folder in {parent}: {problem}; {fix}")


def default_runs_dir() -> Path:
    """Where run directories go by default: the user data dir (platformdirs) / runs."""
    import platformdirs

    return platformdirs.user_data_path("overhead-tui", appauthor=False) / "runs"


def new_run_dir(parent: Path | None = None) -> Path:
    """Create and return a fresh run directory ``YYYYmmdd-HHMMSS-PID`` under ``parent``."""
    parent = parent or default_runs_dir()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = parent / f"{stamp}-{os.getpid()}"
    suffix = 0
    while path.exists():
        suffix += 1
        path = parent / f"{stamp}-{os.getpid()}-{suffix}"
    path.mkdir(parents=True)
    return path


def lock_run_dir(path: Path) -> int | None:
    """Take ``path``'s run lock for the rest of this process's life.

    Returns None when taken (or already held by this process), else the pid recorded by the
    run that holds it (0 when unknown).

    Raises:
        OSError: the lock file cannot be created (the folder is not writable).
    """
    key = path.resolve()
    if key in _held:
        return None
    fd = os.open(path / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        os.close(fd)
        return int(text) if text.isdigit() else 0
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held[key] = fd
    return None


def unlock_run_dir(path: Path) -> None:
    """Release ``path``'s run lock if this process holds it (the lock file stays)."""
    fd = _held.pop(path.resolve(), None)
    if fd is not None:
        os.close(fd)


def refuse_saved_run_files(option: str, path: Path) -> None:
    """Refuse an export that would replace a saved run's own file (its ``summary.json``,
    ``log.jsonl``, ``run.lock`` or a file under ``logs/`` or ``points/``): a run folder is one
    holding ``log.jsonl`` or ``run.lock``, which every run writes and an export folder lacks.

    Raises:
        UsageError: naming the run folder and the fix.
    """
    resolved = path.resolve()
    for folder in list(resolved.parents)[:3]:  # the file, logs/FILE, points/NAME/FILE
        if not ((folder / "log.jsonl").is_file() or (folder / "run.lock").is_file()):
            continue
        own = resolved.relative_to(folder).parts[0]
        if own in RUN_FILES:
            raise UsageError(
                f"{option} {path} would replace the {own} of the saved run in {folder}; fix: "
                "give a file name outside that run's own files"
            )


def refuse_run_files(paths: dict[str, Path | None], out: Path | None) -> None:
    """Fail before measuring when an export would replace one of the run's own files.

    Args:
        paths: {option: the path given to it, or None}, e.g. ``{"--json": args.json}``.
        out: the run's ``--out`` folder (None: a new run folder, no export can be in it).

    Raises:
        UsageError: a path is ``summary.json``, ``log.jsonl``, ``run.lock`` or inside
            ``logs/`` or ``points/`` of ``out``.
    """
    folder = out.resolve() if out is not None else None
    for option, path in paths.items():
        if path is None or folder is None or not path.resolve().is_relative_to(folder):
            continue
        own = path.resolve().relative_to(folder).parts[:1]
        if own and own[0] in RUN_FILES:
            raise UsageError(
                f"{option} {path} would replace the run's own {own[0]}; fix: give another "
                f"file name (a run writes {', '.join(sorted(RUN_FILES))} in --out)"
            )


def stderr_log(run_dir: Path, name: str) -> Path:
    """Where scenario or probe ``name``'s worker stderr is kept in ``run_dir``."""
    return run_dir / LOGS_DIR / f"{name}.stderr.txt"


LADDER_RUNGS = 5
"""Measured rungs a saved run needs to count as a ladder (``latest_ladder``)."""


def latest_ladder(parent: Path | None = None) -> RunSummary | None:
    """The newest saved run under ``parent`` (default: the user data dir's runs) with at
    least :data:`LADDER_RUNGS` measured rungs, the dense kernel among them: what ``watch``
    places a file's speed on; None
    when there is none (or it cannot be read)."""
    folder = parent or default_runs_dir()
    try:
        runs = sorted(folder.iterdir(), reverse=True)
    except OSError:
        return None
    for run in runs[:50]:
        try:
            summary = RunSummary.load(run / SUMMARY_FILE)
        except SummaryError:  # a broken or foreign folder is skipped, not fatal
            continue
        measured = sum(1 for r in summary.scenarios if r.has_speed)
        if measured >= LADDER_RUNGS and summary.dense is not None:
            return summary
    return None
