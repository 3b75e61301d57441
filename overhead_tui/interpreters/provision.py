"""A virtual environment per interpreter, holding the packages the workers need.

``provision(python)`` creates (on first use) ``user cache dir / interpreters /
VERSION-HASH`` with ``python -m venv`` and installs into it, as binary wheels only, the
versions of :data:`REQUIRED` and :data:`OPTIONAL` that the tool itself runs with
(``importlib.metadata``); where that exact version has no wheel for the interpreter, the
newest one that has is installed instead and recorded as *nearest*.  A stamp file
(``overhead-tui-stamp.json``: the wanted versions, what was installed, what could not be)
makes later runs reuse the folder without calling pip.

A missing optional package only skips the rungs that need it (the worker reports the import
error); a required one that cannot be installed (offline, no wheel, no ``venv`` or ``pip``)
makes the interpreter unusable: :class:`ProvisionError`, one line.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from overhead_tui.kit.folders import user_cache_dir
from overhead_tui.summary.interpreters import Provisioned

REQUIRED = ("numpy", "threadpoolctl")
"""Packages every worker imports."""
OPTIONAL = ("numba", "cffi", "scipy")
"""Packages some rungs or probes import (numba rungs, C rungs via cffi, scipy)."""
STAMP = "overhead-tui-stamp.json"
"""The file in a provisioned folder that records what was installed."""
STAMP_VERSION = 1
PIP_OPTIONS = ("--disable-pip-version-check", "--only-binary", ":all:", "--retries", "1")
"""Wheels only (a source build takes minutes and needs compilers); fail fast offline."""

Runner = Callable[..., subprocess.CompletedProcess[str]]
"""``subprocess.run``'s shape (tests count or replace the pip calls)."""


class ProvisionError(Exception):
    """The interpreter's environment cannot be made; the message is one line."""


def wanted_versions() -> dict[str, str | None]:
    """The versions of the provisioned packages the tool runs with (None: not installed)."""
    versions: dict[str, str | None] = {}
    for name in REQUIRED + OPTIONAL:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def env_folder(python: str, version: str, base: Path | None = None) -> Path:
    """``user cache dir / interpreters / VERSION-HASH`` for ``python`` (its real path)."""
    digest = hashlib.sha256(os.path.realpath(python).encode()).hexdigest()[:12]
    return (base or user_cache_dir()) / "interpreters" / f"{version}-{digest}"


def venv_python(folder: Path) -> Path:
    """The interpreter inside a venv folder."""
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def provision(
    python: str,
    version: str,
    note: Callable[[str], None] = lambda text: None,
    run: Runner = subprocess.run,
    base: Path | None = None,
    wanted: dict[str, str | None] | None = None,
) -> Provisioned:
    """The venv for ``python`` (a ``version`` such as ``3.12.1``), made on first use.

    Args:
        note: progress lines (for stderr).
        run: runs each command (``subprocess.run``).
        base: the cache folder (default: the user cache dir).
        wanted: package → version to install (default: :func:`wanted_versions`).

    Raises:
        ProvisionError: no venv (``venv``/``ensurepip`` missing), or a required package
            cannot be installed (offline, no wheel); one line naming it and the fix.
    """
    wanted = wanted_versions() if wanted is None else wanted
    folder = env_folder(python, version, base)
    target = venv_python(folder)
    stamp = _read_stamp(folder)
    if stamp is not None and stamp.get("wanted") == wanted and target.exists():
        return Provisioned(
            python=str(target),
            folder=str(folder),
            installed=dict(stamp.get("installed", {})),
            nearest=dict(stamp.get("nearest", {})),
            missing=dict(stamp.get("missing", {})),
            reused=True,
        )
    note(f"creating the environment for Python {version} in {folder} (once) ...")
    folder.parent.mkdir(parents=True, exist_ok=True)
    made = _run(run, [python, "-m", "venv", "--clear", str(folder)], 300)
    if made.returncode != 0 or not target.exists():
        raise ProvisionError(
            f"Python {version} ({python}) cannot create a virtual environment "
            f"({_last_line(made.stderr)}); fix: install its venv/ensurepip module, or pass "
            "--no-provision with an interpreter that has numpy and threadpoolctl"
        )
    result = Provisioned(python=str(target), folder=str(folder))
    packages = [name for name in REQUIRED + OPTIONAL if name in wanted]
    pins = [f"{n}=={wanted[n]}" if wanted[n] else n for n in packages]
    note(f"  installing {' '.join(pins)} ...")
    together = _pip(run, target, pins)
    if together.returncode != 0:  # one by one: an exact pin, else the nearest wheel
        for name in packages:
            _install_one(run, target, name, wanted[name], result, note)
            if name in REQUIRED and name in result.missing:
                raise ProvisionError(
                    f"Python {version}: cannot install {name} ({result.missing[name]}); fix: "
                    "connect to the package index (or set PIP_INDEX_URL), or pass "
                    "--no-provision with an interpreter that has numpy and threadpoolctl"
                )
    result.installed.update(_installed_versions(run, target, packages))
    for name in packages:
        want, got = wanted[name], result.installed.get(name)
        if got is None:
            result.missing.setdefault(name, "not installed")
        elif want and got != want:
            result.nearest[name] = want
    for name in REQUIRED:
        if name in result.missing:
            raise ProvisionError(
                f"Python {version}: cannot install {name} ({result.missing[name]}); fix: "
                "connect to the package index, or pass --no-provision"
            )
    for name, want in result.nearest.items():
        note(f"  {name} {want} has no wheel for Python {version}: {result.installed[name]}")
    for name, why in result.missing.items():
        note(f"  {name}: not available for Python {version} ({why}); its rungs are skipped")
    _write_stamp(folder, wanted, result)
    return result


def _install_one(
    run: Runner,
    target: Path,
    name: str,
    version: str | None,
    result: Provisioned,
    note: Callable[[str], None],
) -> None:
    attempts = [f"{name}=={version}"] if version else []
    attempts.append(name)  # the newest wheel there is for this interpreter
    problem = ""
    for pin in attempts:
        proc = _pip(run, target, [pin])
        if proc.returncode == 0:
            result.missing.pop(name, None)
            return
        problem = _last_line(proc.stderr) or f"pip exit code {proc.returncode}"
    result.missing[name] = problem


def _pip(run: Runner, target: Path, pins: list[str]) -> subprocess.CompletedProcess[str]:
    return _run(run, [str(target), "-m", "pip", "install", *PIP_OPTIONS, *pins], 900)


def _run(run: Runner, argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    try:
        return run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, 124, "", f"no answer within {timeout:g} s")
    except OSError as exc:
        return subprocess.CompletedProcess(argv, 127, "", str(exc))


_VERSIONS_SCRIPT = """
import importlib.metadata as m, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        pass
print(json.dumps(out))
"""


def _installed_versions(run: Runner, target: Path, names: list[str]) -> dict[str, str]:
    proc = _run(run, [str(target), "-c", _VERSIONS_SCRIPT, *names], 60)
    try:
        return dict(json.loads(proc.stdout.strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {}


def _last_line(text: str) -> str:
    lines = [x.strip() for x in (text or "").splitlines() if x.strip()]
    line = lines[-1] if lines else ""
    return line if len(line) <= 200 else line[:199] + "…"


def _read_stamp(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / STAMP).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("stamp") == STAMP_VERSION else None


def _write_stamp(folder: Path, wanted: dict[str, str | None], result: Provisioned) -> None:
    data = {
        "stamp": STAMP_VERSION,
        "wanted": wanted,
        "installed": result.installed,
        "nearest": result.nearest,
        "missing": result.missing,
        "tool_python": sys.version.split()[0],
    }
    staging = folder / f".{STAMP}.{os.getpid()}"
    staging.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(staging, folder / STAMP)
