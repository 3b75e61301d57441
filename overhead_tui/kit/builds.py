"""The builds a worker made, by rung: how each compiled rung was built, as the summary's typed
:class:`~overhead_tui.summary.measured.BuildInfo`.

The kit's build helpers (``c_rung.prepare``, ``pybuild.compile_python``,
``low_precision.prepare_low_precision``) record theirs here under the rung's ``NAME``; a rung
compiled by another tool (XLA) records its own with :func:`record_build`.  The worker reads
the rung's record after ``setup`` (:func:`build_of`) and reports it.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from overhead_tui.summary.measured import BuildInfo

_BUILDS: dict[str, BuildInfo] = {}


def record_build(name: str, info: BuildInfo | dict[str, Any]) -> BuildInfo:
    """Record rung ``name``'s build (a :class:`BuildInfo`, or its fields as a dict: the kit's
    build functions' form); the record."""
    if isinstance(info, dict):
        known = {f.name for f in fields(BuildInfo)}
        info = BuildInfo(**{k: v for k, v in info.items() if k in known})
    _BUILDS[name] = info
    return info


def build_of(name: str) -> BuildInfo | None:
    """Rung ``name``'s build in this process (None: nothing built under that name)."""
    return _BUILDS.get(name)


def split_legacy(args: tuple[Any, ...]) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """A build helper's arguments: (the ``BUILD_INFO`` dict a file written before the build
    record passes first, or a throwaway one; the other arguments)."""
    if args and isinstance(args[0], dict):
        return args[0], args[1:]
    return {}, args
