"""The cache folders the tool and its workers write to, checked before any measuring.

The user cache dir (moved by ``XDG_CACHE_HOME``) holds the probe cache and the built C rungs.
An unwritable cache is not fatal: a private temporary one is used instead, with a warning,
so the run is still measured and saved.  (The run directory has its own home:
``engine.run_dir``.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from overhead_tui.errors import UsageError

CACHE_ENV = "XDG_CACHE_HOME"
"""The variable that moves the user cache dir (platformdirs on Linux)."""

WORKER_CACHE_ENV = "OVERHEAD_TUI_CACHE_DIR"
"""The variable that hands the parent's user cache dir to its workers."""

CACHE_WARNING_ENV = "OVERHEAD_TUI_CACHE_WARNING"
"""The variable that hands the parent's warning to its workers when it moved the cache to a
temporary folder (:func:`ensure_cache`): each build they record carries it (``BuildInfo.
cache_warning``), since the workers themselves only see a writable cache."""


def writable_problem(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` (created when missing), or None if they can.

    Tries for real (creates and removes a file), so it holds for root and read-only mounts.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".overhead-tui-check-"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def user_cache_dir() -> Path:
    """The user cache dir of overhead-tui (platformdirs; moved by ``XDG_CACHE_HOME``).

    A worker gets its parent's in ``$OVERHEAD_TUI_CACHE_DIR`` (``engine.spawn.worker_env``),
    so an interpreter given with ``--python`` needs no platformdirs of its own.
    """
    given = os.environ.get(WORKER_CACHE_ENV)
    if given:
        return Path(given)
    import platformdirs

    return platformdirs.user_cache_path("overhead-tui", appauthor=False)


def private_temp_cache() -> Path | None:
    """A temporary cache home for this user: ``$TMPDIR/overhead-tui-cache-UID``, made mode 0700
    and used only if this user owns it and nobody else can write to it (it holds shared
    libraries that are loaded); else a fresh random one.  None if no temp folder is writable.
    """
    base = Path(tempfile.gettempdir())
    stable = base / f"overhead-tui-cache-{os.getuid()}"
    with contextlib.suppress(OSError):
        stable.mkdir(mode=0o700, exist_ok=True)
        info = stable.lstat()
        private = stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if info.st_uid == os.getuid() and private and writable_problem(stable) is None:
            return stable
    try:
        return Path(tempfile.mkdtemp(prefix="overhead-tui-cache-"))
    except OSError:
        return None


def ensure_cache() -> str | None:
    """Make sure the user cache dir is writable, before anything is measured.

    When it is not, point ``XDG_CACHE_HOME`` (of this process, and so of its workers) at a
    private temporary cache and return a one-line warning naming the folder and the fix; None
    when the cache is fine.

    Raises:
        UsageError: neither the cache folder nor a temporary folder is writable.
    """
    folder = user_cache_dir()
    problem = writable_problem(folder)
    if problem is None:
        return None
    fallback = private_temp_cache()
    fix = f"fix: set {CACHE_ENV} to a writable folder"
    if fallback is None:
        raise UsageError(
            f"the cache folder {folder} is not writable ({problem}), nor is the temporary "
            f"folder {tempfile.gettempdir()}; {fix}"
        )
    os.environ[CACHE_ENV] = str(fallback)
    said = (
        f"the cache folder {folder} is not writable ({problem}); using {fallback} for now "
        f"(probes are measured again, C rungs rebuilt); {fix}"
    )
    os.environ[CACHE_WARNING_ENV] = said
    return f"warning: {said}"


STALE_BUILD_S = 3600.0
"""Age (s) past which a private build folder in the cache was left by a worker killed in its
build (a timeout, Ctrl-C): a build takes seconds to a minute, so the next build removes it."""


def private_build_folder(folder: Path, prefix: str) -> tempfile.TemporaryDirectory[str]:
    """A private folder in the cache ``folder`` for one build (removed when it ends), after
    removing the ``prefix`` folders older than :data:`STALE_BUILD_S` that killed builds left."""
    for stale in folder.glob(f"{prefix}*"):
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > STALE_BUILD_S:
                shutil.rmtree(stale, ignore_errors=True)
    return tempfile.TemporaryDirectory(prefix=prefix, dir=folder)


def build_once(folder: Path, module_name: str, target: Path, make: Callable[[], None]) -> bool:
    """Run ``make`` (which leaves ``target``) unless ``target`` is there, holding
    :func:`build_lock` while it runs and looking again once it is held (another process may
    have built it meanwhile); True when ``target`` was there (cached), False when ``make``
    ran."""
    if target.exists():
        return True
    with build_lock(folder, module_name):
        if target.exists():
            return True
        make()
        return False


@contextlib.contextmanager
def build_lock(folder: Path, module_name: str) -> Iterator[None]:
    """Hold the one lock of ``module_name``'s build in ``folder`` (``fcntl.flock`` on a
    ``.lock`` file beside it), waiting while another process holds it: a module is built
    once, whichever processes want it at the same time (the app and the CLI, the test
    suite's workers); the others then load what it built.  No lock where ``fcntl`` is
    missing (not POSIX)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(folder / f".{module_name}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
