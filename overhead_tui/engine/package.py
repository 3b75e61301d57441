"""This package's own files: its folder, and the file of one of its modules, resolved by the
import system so that a module that moved is an error, never a stale path handed to a child."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import overhead_tui
from overhead_tui.errors import MissingPackageFile


def package_dir() -> Path:
    """The folder of this very ``overhead_tui`` package (symlinks resolved)."""
    return Path(overhead_tui.__file__).resolve().parent


def package_file(module: str) -> Path:
    """The source file of this package's own ``module`` (a dotted name: ``overhead_tui.worker
    .__main__``), resolved by the import system, so a module that moved is an error here and
    never a stale path handed to a child.

    Raises :class:`~overhead_tui.errors.MissingPackageFile` (one line naming the module and the
    fix) when the module or its file is not there.
    """
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:  # a parent package is missing
        spec = None
    origin = Path(spec.origin) if spec is not None and spec.origin else None
    if origin is None or not origin.is_file():
        raise MissingPackageFile(
            f"{module} is not in {package_dir()} (a broken or partial installation); "
            "fix: reinstall overhead-tui (make clean && make run)"
        )
    return origin.resolve()
