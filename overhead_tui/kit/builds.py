"""The builds a worker made, by rung: how each compiled rung was built, as the summary's typed
:class:`~overhead_tui.summary.measured.BuildInfo`.

The kit's build helpers (``c_rung.prepare``, ``pybuild.compile_python``,
``low_precision.prepare_low_precision``) record theirs here under the rung's ``NAME``; a rung
compiled by another tool (XLA) records its own with :func:`record_build`.  The worker reads
the rung's record after ``setup`` (:func:`build_of`) and reports it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from overhead_tui.kit.cbuild import BuildError, BuildFields
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.measured import BuildInfo

_BUILDS: dict[str, BuildInfo] = {}


def record_build(name: str, info: BuildInfo | BuildFields) -> BuildInfo:
    """Record rung ``name``'s build (a :class:`BuildInfo`, or its fields as a dict: the kit's
    build functions' form); the record."""
    if isinstance(info, dict):  # by the codec, as the worker's build message is read
        info = from_json(BuildInfo, info)
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


PLACE = re.compile(r"\b(?:SOURCE|rung\.c):(\d+)(:\d+)?:")
"""A line of SOURCE in a build's error: ``SOURCE:2:13:`` (``pybuild.diagnostic``) or the C
compiler's ``rung.c:4:27:`` (cffi's module keeps SOURCE's line numbers as ``rung.c``)."""


def in_file(message: str, path: str | None) -> str:
    """A build error with each place in SOURCE (:data:`PLACE`) as the scenario file's
    ``NAME.py:LINE[:COL]:``, as an editor takes it: SOURCE's line 1 is its ``SOURCE = r\"\"\"``
    line.  The message as it is where the file or its SOURCE assignment cannot be read."""
    start = _source_line(path) if path and PLACE.search(message) else None
    if start is None or path is None:
        return message
    name = Path(path).name
    return PLACE.sub(lambda m: f"{name}:{start + int(m[1]) - 1}{m[2] or ''}:", message)


@contextmanager
def errors_in_file(module: object) -> Iterator[None]:
    """A :class:`BuildError` raised inside, its places in SOURCE as ``module``'s file's lines
    (:func:`in_file`): a rung completed by its declarations builds in the kit's ``setup``."""
    try:
        yield
    except BuildError as exc:
        raise BuildError(in_file(str(exc), getattr(module, "__file__", None))) from None


def _source_line(path: str) -> int | None:
    """The line of ``path``'s top-level ``SOURCE = ...`` assignment, or None."""
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "SOURCE" for t in targets):
            return node.lineno
    return None
