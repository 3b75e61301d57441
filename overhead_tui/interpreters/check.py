"""Is this a Python the workers can run on? ``--python`` checked by running it: a computed
answer (so ``/bin/echo`` is no interpreter), its version, its packages, and the real path
to start (a venv kept as is, a shim or ``python3.X`` name resolved).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass, field

from overhead_tui.engine.spawn import run_command, worker_env
from overhead_tui.errors import UsageError
from overhead_tui.summary.codec import DecodeError, from_json

CHECK_TIMEOUT_S = 60.0
"""Seconds the candidate interpreter has to answer the check script."""

MIN_WORKER_PYTHON = (3, 11)
"""Oldest interpreter a worker runs on (the package's ``requires-python``)."""


CHECK_VALUE = 6007 * 7919
"""What the check script computes: a program that merely echoes its arguments cannot print it."""


@dataclass(frozen=True)
class CheckFacts:
    """What the check script reports about the candidate interpreter."""

    check: int = 0
    """:data:`CHECK_VALUE` when it computed its answer."""
    executable: str | None = None
    """``sys.executable`` (None or empty when it does not know)."""
    realpath: str = ""
    prefix: str = ""
    base_prefix: str = ""
    implementation: str = "Python"
    version: str = ""
    version_info: tuple[int, ...] = ()
    missing: dict[str, str] = field(default_factory=dict)
    """{package: why it does not import}."""
    worker_error: str | None = None
    """Why this package's worker does not import there."""


_CHECK_SCRIPT = f"""
import json, os, platform, sys
facts = dict(
    check=6007 * 7919,
    executable=sys.executable,
    realpath=os.path.realpath(sys.executable) if sys.executable else "",
    prefix=sys.prefix,
    base_prefix=getattr(sys, "base_prefix", sys.prefix),
    implementation=platform.python_implementation(),
    version=platform.python_version(),
    version_info=list(sys.version_info[:2]),
    missing={{}},
)
for name in ("numpy", "threadpoolctl"):
    try:
        __import__(name)
    except Exception as exc:
        facts["missing"][name] = "%s: %s" % (type(exc).__name__, exc)
if tuple(sys.version_info[:2]) >= {MIN_WORKER_PYTHON!r} and not facts["missing"]:
    try:
        import overhead_tui.worker.main
    except Exception as exc:
        facts["worker_error"] = "%s: %s" % (type(exc).__name__, exc)
print("overhead-tui-check " + json.dumps(facts))
"""
"""Run by :func:`verified_python` in the candidate interpreter, as a worker would start; written
for any Python (2.7 too) so that an old one is named rather than failing with a SyntaxError."""


def verified_python(python: str) -> str:
    """Check that ``python`` is a Python ≥ 3.11 that imports numpy and threadpoolctl (and this
    package's worker) in a worker's environment; return the interpreter the workers should run.

    ``python`` may be a path or a name on PATH (``python3.12``, a pyenv shim). The interpreter
    runs a small script whose answer it must *compute*, and reports its own
    ``sys.executable``: a venv's python is returned as is (resolving its symlink would lose the
    venv's site-packages), any other is resolved to the real file, so a shim or a
    ``python3`` symlink becomes the interpreter it starts.

    Raises:
        UsageError: missing or not executable, not a Python (``/bin/echo``), a pyenv shim
            that cannot run, too old, or lacking numpy or threadpoolctl; one line with the fix.
    """
    from overhead_tui.interpreters.resolve import VERSION_NAME, resolve_python

    if VERSION_NAME.match(python) and not shutil.which(python):  # a version: 3.13, as
        # `interpreters --python` takes it (a name on PATH, a pyenv shim, is run as it is)
        found: str | None = resolve_python(python)
    else:
        found = shutil.which(python) if os.sep not in python else python
    if not (found and os.path.isfile(found) and os.access(found, os.X_OK)):
        problem = "no such executable"
        if found and os.path.isdir(found):
            problem = "is a folder"
        elif found and os.path.isfile(found):
            problem = "is not executable"
        raise UsageError(f"--python {python}: {problem}; fix: give an interpreter path")
    found = os.path.abspath(found)
    proc = run_command([found, "-c", _CHECK_SCRIPT], CHECK_TIMEOUT_S, env=worker_env())
    if proc.start_error is not None:
        raise UsageError(
            f"--python {python} cannot be run ({proc.start_error}); fix: give the path of a "
            "python executable"
        )
    if proc.timed_out:  # its whole process group was killed: nothing it started is left
        raise UsageError(
            f"--python {python} did not answer within {CHECK_TIMEOUT_S:g} s; fix: give the path "
            "of a python executable"
        )
    facts = _check_facts(proc.stdout)
    if facts is None:
        raise UsageError(_not_python(python, found, proc.returncode, proc.stderr))
    resolved = _resolved(facts, found)
    version = ".".join(map(str, facts.version_info[:2]))
    implementation = facts.implementation
    if (facts.version_info or (0,)) < MIN_WORKER_PYTHON:
        need = ".".join(map(str, MIN_WORKER_PYTHON))
        raise UsageError(
            f"--python {python} is {implementation} {facts.version}; the workers need "
            f"Python {need} or newer; fix: give a newer interpreter"
        )
    missing = facts.missing
    if missing:
        names = " and ".join(missing)
        first = _one_line(next(iter(missing.values())))
        raise UsageError(
            f"--python {python} ({implementation} {version}) cannot import {names} ({first}); "
            f"fix: {resolved} -m pip install numpy threadpoolctl, or `overhead-tui interpreters "
            f"--python {python}`, which installs them in a virtualenv of its own"
        )
    if facts.worker_error:
        raise UsageError(
            f"--python {python} cannot import overhead-tui's worker "
            f"({_one_line(facts.worker_error)}); fix: use an interpreter like this one "
            f"({sys.version.split()[0]})"
        )
    return resolved


def _check_facts(stdout: str) -> CheckFacts | None:
    """The check script's report, or None unless its answer was computed correctly."""
    for line in stdout.splitlines():
        if not line.startswith("overhead-tui-check "):
            continue
        try:
            data = json.loads(line.split(" ", 1)[1])
            facts = from_json(CheckFacts, data, strict=True, where="check")
        except (json.JSONDecodeError, DecodeError):
            continue
        if facts.check == CHECK_VALUE:
            return facts
    return None


def _resolved(facts: CheckFacts, found: str) -> str:
    """The path the workers start: a venv's python as it reports itself, else the real file."""
    if not facts.executable:
        return os.path.realpath(found)
    if facts.prefix != facts.base_prefix:
        return facts.executable  # a venv: its python symlinks to the base interpreter
    return facts.realpath or os.path.realpath(facts.executable)


def _not_python(python: str, found: str, returncode: int | None, stderr: str) -> str:
    """Why ``found`` gave no check report: pyenv's own complaint in plain words, or not a
    Python."""
    lines = [x.strip() for x in stderr.splitlines() if x.strip()]
    pyenv = next((x for x in lines if x.startswith("pyenv: ")), None)
    if pyenv is not None:
        return _pyenv_problem(python, found, pyenv.removeprefix("pyenv: "), lines)
    detail = f", exit code {returncode}: {_one_line(lines[-1])}" if lines else ""
    return (
        f"--python {python} is not a Python interpreter (it did not run the check "
        f"script{detail}); fix: give the path of a python executable"
    )


def _pyenv_problem(python: str, found: str, problem: str, lines: list[str]) -> str:
    """A pyenv shim that could not start an interpreter, said plainly, with the fix."""
    program = os.path.basename(found)
    if "is not installed" in problem:
        version = problem.split("`", 1)[-1].split("'", 1)[0]
        return (
            f"--python {python} is a pyenv shim and pyenv says: {_one_line(problem)}; fix: "
            f"`pyenv install {version}`, or give the path of an installed interpreter"
        )
    versions = []
    if any("exists in these Python versions" in x for x in lines):
        index = next(i for i, x in enumerate(lines) if "exists in these Python versions" in x)
        for line in lines[index + 1 :]:
            if line.startswith("Note:"):
                break
            versions.append(line)
    if versions:
        shims = os.path.dirname(found)
        root = os.path.dirname(shims)
        if os.path.basename(shims) != "shims":
            root = os.environ.get("PYENV_ROOT") or root
        path = os.path.join(root, "versions", versions[-1], "bin", program)
        return (
            f"--python {python} is a pyenv shim, but {program} is not in the pyenv version "
            f"selected here (it is in {', '.join(versions)}); fix: --python {path}, or "
            f"`pyenv shell {versions[-1]}` first"
        )
    return (
        f"--python {python} is a pyenv shim and pyenv could not start it "
        f"({_one_line(problem)}); fix: give the interpreter's own path (`pyenv which "
        f"{program}` prints it)"
    )


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
