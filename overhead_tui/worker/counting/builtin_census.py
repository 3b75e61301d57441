"""Count the work builtins do in C for a kernel: the functions ``map`` calls and the floats
they make.

A loop such as ``sum(map(operator.mul, row, column))`` executes no bytecode per item: ``map``
calls ``operator.mul`` from C (a vectorcall no profile hook sees) and each product is a new
float.  Method: for one kernel call, ``builtins.map`` is replaced by a recorder that notes the
function and the length of each of its iterables before handing them to the real ``map``:
when the function is a builtin (C) function and every iterable is a sized sequence, the calls
are the shortest length (``c_calls``), and when that function, applied to the first items,
returns a float that is none of them, each call makes one (``c_floats``).  A Python function
given to ``map`` is not counted here: its calls are profile ``call`` events already.  Names
bound before the kernel is called (``from builtins import map``) are not seen.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Sequence
from typing import Any


def _calls(function: object, iterables: tuple[Any, ...]) -> tuple[int, int]:
    """(C calls, floats made) of ``map(function, *iterables)``; (0, 0) where unknown."""
    if not isinstance(function, types.BuiltinFunctionType) or not iterables:
        return 0, 0
    if not all(isinstance(x, Sequence) for x in iterables):
        return 0, 0
    items = min(len(x) for x in iterables)
    if items == 0:
        return 0, 0
    firsts = [x[0] for x in iterables]
    try:
        made = function(*firsts)
    except Exception:
        return items, 0
    creates = isinstance(made, float) and all(made is not x for x in firsts)
    return items, items if creates else 0


def c_level_calls(fn: Callable[..., object], args: tuple[object, ...]) -> tuple[int, int]:
    """(builtin functions called from C by ``map``, floats they made) in ``fn(*args)``."""
    real_map = builtins.map
    counts = [0, 0]

    def recording_map(function: Any, *iterables: Any) -> Any:
        calls, floats = _calls(function, iterables)
        counts[0] += calls
        counts[1] += floats
        return real_map(function, *iterables)

    setattr(builtins, "map", recording_map)  # noqa: B010 (mypy: map is a type)
    try:
        fn(*args)
    finally:
        setattr(builtins, "map", real_map)  # noqa: B010
    return counts[0], counts[1]
