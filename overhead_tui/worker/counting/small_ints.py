"""Int results and CPython's small-int cache: which of a kernel's int arithmetic results make
an object.

CPython keeps one object for each int in −5…256 (:data:`SMALL_INTS`); an ``int`` result
inside it is that object (a reference taken), one outside it is a new object.  A loop counter
``k += 1`` at n = 64 never leaves the cache; an index ``i * n + k`` leaves it once n² > 256.

Method (:class:`IntResults`, driven by ``counting.opcodes`` during the counted call): at the
first execution of a ``BINARY_OP`` on ``+``, ``-`` or ``*``, its expression is found by its
source position (``site_source.site_node``); where it is side-effect free (names, constants,
arithmetic: ``site_source.pure``), it is evaluated again in the frame at each execution, just
before the instruction runs, which gives the result the instruction is about to make.  Per
instruction: its executions, the results outside the cache and the largest magnitude.

At the timed n (:func:`made_share`): an instruction's largest result is carried from the two
largest counted sizes as the power of n it grows with (a counter: n; ``i * n + k``: n²), and
its results are taken as spread evenly up to it (a counter over ``range(n)``, an index over
the matrix), so the share outside the cache is ``1 − 256 / largest``.  An instruction whose
expression could not be evaluated again counts as making an object each time (the model's
rule before this count).
"""

from __future__ import annotations

import ast
import dis
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import CodeType, FrameType

from overhead_tui.worker.counting.site_source import pure, site_node

SMALL_INTS = (-5, 256)
"""The ints CPython keeps one object each of (3.11–3.13: ``_PY_NSMALLNEGINTS`` = 5 and
``_PY_NSMALLPOSINTS`` = 257 in ``Include/internal/pycore_global_objects.h`` /
``pycore_runtime_structs.h``); ``tests/unit/test_small_ints.py`` checks the bounds on each
installed interpreter by object identity."""

INT_OPERATORS = frozenset({"+", "-", "*", "+=", "-=", "*="})
"""The ``BINARY_OP`` operators CPython specialises for ints (``BINARY_OP_ADD_INT`` …)."""


@dataclass
class IntResult:
    """One instruction's int results in one counted call."""

    count: int = 0
    made: int = 0
    """Results outside :data:`SMALL_INTS`: each a new object."""
    largest: int = 0
    """The largest magnitude of a result."""


@dataclass
class IntResults:
    """Each int-arithmetic instruction's results, by (code, offset)."""

    results: dict[tuple[CodeType, int], IntResult] = field(default_factory=dict)
    _exprs: dict[tuple[CodeType, int], CodeType | None] = field(default_factory=dict)
    _operators: dict[CodeType, dict[int, str]] = field(default_factory=dict)

    def first(self, code: CodeType, offset: int) -> None:
        """An instruction's first execution: keep its expression where it is int arithmetic
        that can be evaluated again."""
        key = (code, offset)
        if code not in self._operators:
            self._operators[code] = {
                i.offset: i.argrepr
                for i in dis.get_instructions(code)
                if i.opname == "BINARY_OP" and i.argrepr in INT_OPERATORS
            }
        if offset not in self._operators[code]:
            return
        node = site_node(code, offset, "BINARY_OP")
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            target = ast.Name(id=node.target.id, ctx=ast.Load())
            node = ast.BinOp(left=target, op=node.op, right=node.value)
        if not isinstance(node, ast.BinOp) or not pure(node):
            return
        expression = ast.fix_missing_locations(ast.Expression(ast.copy_location(node, node)))
        self._exprs[key] = compile(expression, "<int result>", "eval")

    def step(self, key: tuple[CodeType, int], frame: FrameType) -> None:
        """An execution of an instruction :meth:`first` kept: its result, evaluated before it
        runs."""
        expression = self._exprs.get(key)
        if expression is None:
            return
        try:
            value: object = eval(expression, frame.f_globals, frame.f_locals)
        except Exception:
            value = None
        if type(value) is not int:  # floats, arrays, or not evaluable after all: not counted
            self._exprs[key] = None
            self.results.pop(key, None)
            return
        found = self.results.setdefault(key, IntResult())
        found.count += 1
        if not SMALL_INTS[0] <= value <= SMALL_INTS[1]:
            found.made += 1
        found.largest = max(found.largest, abs(value))

    def watches(self, key: tuple[CodeType, int]) -> bool:
        return self._exprs.get(key) is not None


def made_share(
    sizes: Sequence[int],
    per_size: Sequence[dict[tuple[str, int], tuple[int, int, int]]],
    int_ops: float,
    n: int,
) -> float:
    """The share of the int-arithmetic results at ``n`` that are new objects (module doc).

    ``per_size``: per counted size, {(code name, offset): (count, made, largest)};
    ``int_ops``: the int-arithmetic instructions executed at the largest size (those not
    evaluated count as making an object each).  1.0 when nothing was evaluated.
    """
    if not per_size or int_ops <= 0:
        return 1.0
    last = per_size[-1]
    evaluated = sum(count for count, _, _ in last.values())
    made = 0.0
    for key, (count, made_here, largest) in last.items():
        if n <= sizes[-1]:  # counted at n itself
            made += made_here
            continue
        earlier = [(sizes[i], p[key][2]) for i, p in enumerate(per_size[:-1]) if key in p]
        power = 1.0  # one size only: as a counter grows
        if earlier and earlier[-1][1] > 0 and largest > 0 and earlier[-1][0] < sizes[-1]:
            at, there = earlier[-1]
            power = min(3.0, max(0.0, math.log(largest / there) / math.log(sizes[-1] / at)))
        top = largest * (n / sizes[-1]) ** power
        made += count * (max(0.0, 1.0 - SMALL_INTS[1] / top) if top > SMALL_INTS[1] else 0.0)
    return min(1.0, (made + max(0.0, int_ops - evaluated)) / int_ops)
