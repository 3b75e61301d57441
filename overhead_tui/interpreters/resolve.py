"""Find the Python interpreter ``--python`` names (a path, or a version such as ``3.12``) and
say what it is (implementation, version, free-threaded, JIT).

A version is looked up, in order, as ``python3.12`` on ``PATH`` (a pyenv shim there is
replaced by the interpreter it would start), in pyenv's versions folder (``$PYENV_ROOT``,
``pyenv root``, ``~/.pyenv``: the newest ``3.12.*`` with ``bin/python3.12``), then in
``/usr/local/bin`` and ``/usr/bin``.  Nothing here runs the interpreter except
:func:`describe`; ``commands.common.verified_python`` verifies what was found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from overhead_tui.engine.spawn import run_command
from overhead_tui.errors import UsageError
from overhead_tui.summary.interpreters import PythonInfo

VERSION_NAME = re.compile(r"^(?:python)?(\d+)\.(\d+)(t?)$")
"""A ``--python`` naming a version: ``3.12``, ``python3.13``, ``3.13t`` (free-threaded)."""
SYSTEM_FOLDERS = (Path("/usr/local/bin"), Path("/usr/bin"))
"""Well-known folders searched after PATH and pyenv."""


def pyenv_roots() -> list[Path]:
    """pyenv's root folders that exist: ``$PYENV_ROOT``, ``pyenv root``, ``~/.pyenv``."""
    roots: list[Path] = []
    if os.environ.get("PYENV_ROOT"):
        roots.append(Path(os.environ["PYENV_ROOT"]))
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            out = subprocess.run(
                [pyenv, "root"], capture_output=True, text=True, timeout=10, check=False
            )
            if out.returncode == 0 and out.stdout.strip():
                roots.append(Path(out.stdout.strip()))
        except (OSError, subprocess.TimeoutExpired):
            pass
    roots.append(Path.home() / ".pyenv")
    unique: list[Path] = []
    for root in roots:
        if root.is_dir() and root not in unique:
            unique.append(root)
    return unique


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(x) if x.isdigit() else -1 for x in re.split(r"[.\-]", name))


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _is_shim(path: str) -> bool:
    return os.path.basename(os.path.dirname(path)) == "shims"


def resolve_python(requested: str) -> str:
    """The interpreter path ``--python`` names (not yet verified to run).

    Args:
        requested: a path (``/opt/py/bin/python3``, ``./venv/bin/python``), a command name on PATH
            that is not a version (``pypy3``), or a version ``X.Y`` / ``pythonX.Y`` (``t``
            suffix: a free-threaded build, ``python3.13t``).

    Raises:
        UsageError: nothing found; the line names every place looked in.
    """
    if os.sep in requested or requested.startswith("."):
        path = Path(requested).expanduser()
        if not _executable(path):
            raise UsageError(
                f"--python {requested}: no executable file there; fix: give an interpreter's path "
                "or a version such as 3.12"
            )
        return str(path.absolute())
    match = VERSION_NAME.match(requested)
    if match is None:
        found = shutil.which(requested)
        if found is None and requested.lower().startswith("pypy"):
            raise UsageError(
                f"--python {requested}: no PyPy on PATH; fix: install a PyPy of Python 3.11 or "
                "newer (pypy.org; Debian's pypy3 is 3.9, too old for the workers) and give its path"
            )
        if found is None:
            raise UsageError(
                f"--python {requested}: not found on PATH; fix: give an interpreter's path or a "
                "version such as 3.12"
            )
        return found
    major, minor, free = match.groups()
    command = f"python{major}.{minor}{free}"
    looked: list[str] = []
    on_path = shutil.which(command)
    looked.append(f"PATH ({command})")
    pyenv_hit = None
    roots = pyenv_roots()
    for root in roots:
        versions = root / "versions"
        looked.append(str(versions / f"{major}.{minor}.*{free}"))
        if not versions.is_dir():
            continue
        prefix = f"{major}.{minor}."
        names = sorted(
            (
                d.name
                for d in versions.iterdir()
                if d.name.startswith(prefix) and d.name.endswith("t") == bool(free)
            ),
            key=_version_key,
            reverse=True,
        )
        for name in names:
            candidate = versions / name / "bin" / command
            if _executable(candidate):
                pyenv_hit = str(candidate)
                break
        if pyenv_hit:
            break
    if on_path and not (_is_shim(on_path) and pyenv_hit):
        return on_path  # a real interpreter on PATH (or a shim with nothing better)
    if pyenv_hit:
        return pyenv_hit
    for folder in SYSTEM_FOLDERS:
        looked.append(str(folder))
        candidate = folder / command
        if _executable(candidate):
            return str(candidate)
    raise UsageError(
        f"--python {requested}: no {command} found (looked in {', '.join(looked)}); fix: install "
        f"it (e.g. `pyenv install {major}.{minor}`) or give its path"
    )


JIT_ENV = "PYTHON_JIT"
"""The variable that turns the experimental JIT on (``1``) or off (``0``) in a build with it."""


@dataclass(frozen=True)
class Column:
    """One column of ``overhead-tui interpreters`` for an interpreter: the environment its
    run sets, and what it is then."""

    info: PythonInfo
    """The interpreter as it runs in this column (``jit`` as set by :attr:`env`)."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables set for this column's workers (and probes), e.g. ``{"PYTHON_JIT": "0"}``."""


def plan_columns(info: PythonInfo) -> list[Column]:
    """The columns ``info`` gets: two for a build with the experimental JIT (``jit`` not None:
    ``PYTHON_JIT=1`` then ``PYTHON_JIT=0``, labelled jit on / jit off), one (its environment
    untouched) otherwise."""
    if info.jit is None:
        return [Column(info)]
    return [
        Column(replace(info, jit="enabled"), {JIT_ENV: "1"}),
        Column(replace(info, jit="disabled"), {JIT_ENV: "0"}),
    ]


@contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """Set ``env`` in ``os.environ`` for the block (workers inherit it: ``spawn.worker_env``),
    then put back what was there."""
    before = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


DESCRIBE_SCRIPT = r"""
import json, platform, sys, sysconfig
free = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
gil = getattr(sys, "_is_gil_enabled", None)
jit = None
j = getattr(sys, "_jit", None)
if j is not None and hasattr(j, "is_available"):
    jit = "enabled" if j.is_enabled() else ("disabled" if j.is_available() else None)
elif "_Py_JIT" in (sysconfig.get_config_var("PY_CORE_CFLAGS") or ""):
    import os
    jit = "enabled" if os.environ.get("PYTHON_JIT", "1") != "0" else "disabled"
print("overhead-tui-describe " + json.dumps(dict(
    implementation=platform.python_implementation(),
    version=platform.python_version(),
    executable=sys.executable,
    free_threaded=bool(free and (gil is None or not gil())),
    jit=jit,
)))
"""
"""Run in an interpreter by :func:`describe` (stdlib only)."""


DESCRIBE_TIMEOUT_S = 60.0
"""Seconds an interpreter has to describe itself."""


def describe(python: str, env: dict[str, str] | None = None) -> PythonInfo:
    """Ask ``python`` what it is (runs :data:`DESCRIBE_SCRIPT`, a few tens of ms).

    Raises:
        UsageError: it did not answer.
    """
    out = run_command([python, "-c", DESCRIBE_SCRIPT], DESCRIBE_TIMEOUT_S, env=env)
    if out.start_error is not None or out.timed_out:  # its whole process group is gone
        why = out.start_error or f"no answer within {DESCRIBE_TIMEOUT_S:g} s"
        raise UsageError(
            f"--python {python} cannot be run ({why}); fix: give the path of a python executable"
        )
    for line in out.stdout.splitlines():
        if line.startswith("overhead-tui-describe "):
            facts = json.loads(line.split(" ", 1)[1])
            return PythonInfo(**facts)
    raise UsageError(f"--python {python} did not describe itself; fix: give another interpreter")


def this_python() -> PythonInfo:
    """The tool's own interpreter, described in-process."""
    namespace: dict[str, object] = {}
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(DESCRIBE_SCRIPT, namespace)
    line = buffer.getvalue().strip().split(" ", 1)[1]
    return PythonInfo(**json.loads(line))
