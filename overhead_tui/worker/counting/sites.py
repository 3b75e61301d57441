"""C work a kernel hands out of the eval loop, found where it happens and timed at its own
operands: the *sites* of the model's self-timed rows.

A *site* is one instruction (code object, offset) whose work beyond its dispatch runs in C
code that no interpreter probe prices: a call of a C function, method or type (``np.dot``,
``len``, ``row.append``, ``sum(map(...))``), or an instruction that went through a type's
slot (``BINARY_OP`` on numpy arrays or scalars, a ``dict`` or ``defaultdict`` subscript, a
comparison of objects, an index tuple).  What the probes price is no site: the specialised
float, int, list and tuple instructions (``BINARY_OP_MULTIPLY_FLOAT``,
``BINARY_SUBSCR_LIST_INT`` …: :data:`PROBE_PRICED`), reads and writes of a float
``array.array`` (``container_access`` detail), and a call that runs Python code (its frames
and bytecodes are counted; :attr:`Site.reaches_python`).

Method (:class:`SiteRecorder`, driven by ``counting.opcodes`` during the counted call):

1. At a site's first execution, the expression it executes is found by its source position:
   ``co_positions()`` gives the instruction's span, which is the span of exactly one node of
   the file's syntax tree (a ``BinOp``, ``AugAssign``, ``Subscript``, ``Call``, ``Tuple`` or
   ``Compare``).
2. Its operands (left and right, container and index, callee and arguments) are evaluated
   again in the frame's variables, when each is a side-effect-free expression (names,
   constants, attributes, subscripts, slices, tuples, arithmetic: :func:`pure`).  An operand
   that is a one-shot iterator made by a C type (``map(f, x, y)``, ``zip(x, y)``) is kept as
   its expression, so a timing builds it again each time.
3. After the call, each site is timed at those operands (:func:`time_site`): the instruction
   alone in a loop, minus the same loop empty, minus its own dispatches at this moment's
   ns/dispatch.  What is left is what the C code costs at the kernel's own arguments.

``counting.phase`` does this at each counted size and extrapolates the calls (cubic) and the
time per call (linear in the elements its array or sequence operands hold); the model prices
each site's calls per multiply-add at that time (``analysis.sites``).

Limits: an operand that is not side-effect free (a call's result, a comprehension) leaves its
site untimed (counted, shown without a price); the timing loop runs with the operands warm
in the caches, which a kernel streaming larger data does not find.
"""

from __future__ import annotations

import ast
import dis
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

from overhead_tui.worker.counting.instructions import instruction_at
from overhead_tui.worker.counting.site_source import Operand, evaluate, operand_nodes, site_node

SITE_OPS = frozenset({"BINARY_OP", "BINARY_SUBSCR", "STORE_SUBSCR", "COMPARE_OP", "CONTAINS_OP",
                      "BUILD_TUPLE", "CALL"})  # fmt: skip
"""Base instructions that may hand work to a C slot or function (module doc)."""

PROBE_PRICED = frozenset(
    {
        "BINARY_SUBSCR_LIST_INT", "BINARY_SUBSCR_TUPLE_INT", "STORE_SUBSCR_LIST_INT",
        "BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT", "BINARY_OP_SUBTRACT_FLOAT",
        "BINARY_OP_INPLACE_ADD_FLOAT", "BINARY_OP_MULTIPLY_INT", "BINARY_OP_ADD_INT",
        "BINARY_OP_SUBTRACT_INT", "COMPARE_OP_INT_JUMP", "COMPARE_OP_FLOAT_JUMP",
        "COMPARE_OP_INT", "COMPARE_OP_FLOAT",
    }
)  # fmt: skip
"""Specialised instructions the interpreter probes price (dispatch, boxing, list access)."""


@dataclass
class Site:
    """A site captured at its first execution (module doc)."""

    code: CodeType
    offset: int
    op: str
    """Base instruction (``CALL``, ``BINARY_OP`` …)."""
    argrepr: str
    operands: list[Operand] | None
    """None: an operand could not be evaluated again (the site is counted, not timed)."""
    why_untimed: str = ""
    reaches_python: bool = False
    """The C code called the user's Python code (a dunder method, a generator, a lambda): its
    frames are counted, so the site is not timed."""
    inside: Counter[tuple[CodeType, int]] = field(default_factory=Counter)
    """Instructions of library Python code (numpy's dispatchers, the standard library) the
    site ran: inside its timing, not priced again."""
    inside_c: Counter[str] = field(default_factory=Counter)
    """C calls (by module) that library code made."""
    inside_calls: int = 0
    """Python calls into library code the site made."""

    @property
    def timeable(self) -> bool:
        """Its operands were evaluated again and it ran none of the user's Python code."""
        return self.operands is not None and not self.reaches_python

    label: str = ""
    """What runs, as ``numpy.dot(ndarray[20] float64, ndarray[20] float64)``."""
    numpy: bool = False
    """numpy does the work (a numpy callable, or a numpy array or scalar operand)."""
    elements: int = 0
    """Items its array and sequence operands hold (the size its element loop scales with)."""


def _library_roots() -> tuple[str, ...]:
    import sysconfig

    paths = sysconfig.get_paths()
    return tuple({paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths})


LIBRARY_ROOTS = _library_roots()
"""The standard library's and the installed packages' folders: code there is a library's."""


def _describe(value: Any) -> str:
    """A value's signature: its type, and for an array or sequence its shape or length."""
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    name = type(value).__name__
    if isinstance(shape, tuple) and dtype is not None:
        dims = ",".join(str(d) for d in shape)
        return f"{name}[{dims}] {dtype}" if shape else f"{name} {dtype}"
    if isinstance(value, list | tuple | dict) or type(value).__name__ == "array":
        return f"{name}[{len(value)}]"
    if callable(value):
        module = (
            getattr(value, "__module__", None) or type(getattr(value, "__self__", None)).__module__
        )
        qual = getattr(value, "__qualname__", getattr(value, "__name__", name))
        return f"{module}.{qual}" if module and module != "builtins" else str(qual)
    return name


def _items(value: Any) -> int:
    """Items an operand holds (an array's size, a sequence's length), else 0."""
    size = getattr(value, "size", None)
    if isinstance(size, int) and hasattr(value, "dtype"):
        return size
    if isinstance(value, list | tuple | dict | str | bytes) or type(value).__name__ == "array":
        return len(value)
    return 0


def _touched(op: str, operands: list[Operand], values: list[object]) -> int:
    """Items the operation touches, which its element loop (if any) scales with: a subscript
    touches the items it reads or writes (none for one element, or a view of a numpy array:
    it copies nothing), any other operation the items of all its operands."""
    if op not in ("BINARY_SUBSCR", "STORE_SUBSCR"):
        return sum(_items(v) for v in values)
    try:
        part = operands[0].value[operands[1].value]
    except Exception:
        return 0
    if getattr(part, "base", None) is not None and hasattr(part, "dtype"):
        return 0  # a numpy view
    return _items(part)


def _flat(operands: list[Operand]) -> list[Any]:
    out: list[Any] = []
    for o in operands:
        if o.maker is not None:
            out.append(o.maker)
            out.extend(_flat(o.parts))
        else:
            out.append(o.value)
    return out


def _float_array(value: object) -> bool:
    """An ``array.array`` of floats (its reads and writes have a probe of their own)."""
    return type(value).__name__ == "array" and getattr(value, "typecode", "") in ("d", "f")


def _is_numpy(value: object) -> bool:
    module = type(value).__module__ or ""
    if module.split(".")[0] == "numpy":
        return True
    owner = getattr(value, "__self__", None)
    if owner is not None and (type(owner).__module__ or "").split(".")[0] == "numpy":
        return True
    return (getattr(value, "__module__", None) or "").split(".")[0] == "numpy"


class SiteRecorder:
    """Captures each site at its first execution and notes the sites that reach Python."""

    def __init__(self) -> None:
        self.sites: dict[tuple[CodeType, int], Site] = {}
        self._ops: dict[CodeType, dict[int, tuple[str, str]]] = {}
        self.owner: Site | None = None
        """The site whose library Python code runs now (its instructions go to it)."""
        self._owner_frame: FrameType | None = None
        self._library: dict[str, bool] = {}

    def _site_ops(self, code: CodeType) -> dict[int, tuple[str, str]]:
        found = self._ops.get(code)
        if found is None:
            from overhead_tui.worker.counting.instructions import base_opname

            found = {}
            for i in dis.get_instructions(code):
                base = base_opname(i.opname)
                if base in SITE_OPS:
                    found[i.offset] = (base, i.argrepr)
            self._ops[code] = found
        return found

    def first(self, code: CodeType, offset: int, frame: FrameType) -> None:
        """The first execution of (code, offset): capture it if it is a site."""
        spec = self._site_ops(code).get(offset)
        if spec is None or code.co_filename.startswith("<"):
            return
        op, argrepr = spec
        node = site_node(code, offset, op)
        if node is None:  # no expression of its kind: a closure's cells, a comprehension's call
            return
        nodes = operand_nodes(node, op)
        operands: list[Operand] | None = None
        why = "its form is not timed alone (a starred argument, a chained comparison)"
        if nodes is not None:
            scope = dict(frame.f_locals)
            evaluated = [evaluate(n, scope, frame.f_globals) for n in nodes]
            if all(e is not None for e in evaluated):
                operands = [e for e in evaluated if e is not None]
                named = [k.arg for k in node.keywords] if isinstance(node, ast.Call) else []
                for operand, name in zip(
                    operands[len(operands) - len(named) :], named, strict=True
                ):
                    operand.keyword = name
            else:
                why = "an operand is not side-effect free (a call or a comprehension)"
        if operands and op in ("BINARY_SUBSCR", "STORE_SUBSCR") and _float_array(operands[0].value):
            return  # priced by the container_access probe's array.array details
        site = Site(code, offset, op, argrepr, operands, why_untimed="" if operands else why)
        site.label = ast.unparse(node)[:80]
        if operands is not None:
            values = _flat(operands)
            site.numpy = any(_is_numpy(v) for v in values)
            site.elements = _touched(op, operands, values)
            site.label = _label(op, argrepr, operands)
        self.sites[(code, offset)] = site

    def library(self, code: CodeType) -> bool:
        """Code of an installed library or the standard library, not the user's."""
        found = self._library.get(code.co_filename)
        if found is None:
            found = code.co_filename.startswith(LIBRARY_ROOTS)
            self._library[code.co_filename] = found
        return found

    def entered(self, frame: FrameType) -> None:
        """A Python frame was entered: from a site, library code becomes that site's (its
        timing has it), the user's own code makes the site untimed."""
        owner = self.owner
        if owner is not None:
            if self.library(frame.f_code):
                owner.inside_calls += 1
                return
            # library code calling back into the user's (np.vectorize, np.apply_along_axis):
            # the site cannot be timed; from here its code is counted as any other, its own
            # sites (and the user code's) captured and timed where they are
            owner.reaches_python = True
            self.owner, self._owner_frame = None, None
        parent = frame.f_back
        if parent is None:
            return
        site = self.sites.get((parent.f_code, instruction_at(parent.f_code, parent.f_lasti)))
        if site is None:
            return
        if site.operands is not None and self.library(frame.f_code) and not site.reaches_python:
            self.owner, self._owner_frame = site, frame
            site.inside_calls += 1
        else:
            site.reaches_python = True

    def left(self, frame: FrameType) -> None:
        """A Python frame returned (or a generator yielded)."""
        if frame is self._owner_frame:
            self.owner, self._owner_frame = None, None


def expression(
    op: str, argrepr: str, parts: list[str], stored: str, copy_in_place: bool = False
) -> str:
    """A site's operation as Python source over its operands' texts ``parts`` (``stored``: the
    value a ``STORE_SUBSCR`` writes; ``copy_in_place``: an in-place operator works on a copy of
    its name, as a timing loop repeats it): the one spelling the label and the timing share."""
    if op == "CALL":
        return f"{parts[0]}({', '.join(parts[1:])})"
    if op == "BINARY_SUBSCR":
        return f"{parts[0]}[{parts[1]}]"
    if op == "STORE_SUBSCR":
        return f"{parts[0]}[{parts[1]}] = {stored}"
    if op == "BUILD_TUPLE":
        return f"({', '.join(parts)},)"
    if op == "CONTAINS_OP":
        return f"{parts[0]} {'not in' if argrepr.strip() == '1' else 'in'} {parts[1]}"
    symbol = argrepr.split()[-1] if argrepr else "?"
    in_place = symbol.endswith("=") and symbol not in ("==", "!=", "<=", ">=")
    if op == "BINARY_OP" and in_place and copy_in_place:
        return f"x = {parts[0]}; x {symbol} {parts[1]}"
    return f"{parts[0]} {symbol} {parts[1]}"


def operand_text(operand: Operand, leaf: Callable[[object], str]) -> str:
    """An operand as source: ``leaf(value)`` for a value, a rebuilt iterator as its call (a
    keyword argument as ``name=…``)."""
    named = f"{operand.keyword}=" if operand.keyword else ""
    if operand.maker is not None:
        inner = ", ".join(operand_text(p, leaf) for p in operand.parts)
        return f"{named}{leaf(operand.maker)}({inner})"
    return named + leaf(operand.value)


def _label(op: str, argrepr: str, operands: list[Operand]) -> str:
    """What runs, its operands named by type and size (``numpy.dot(ndarray[20] float64, …)``)."""

    def leaf(value: object) -> str:
        return value.__name__ if isinstance(value, type) else _describe(value)

    parts = [operand_text(o, leaf) for o in operands]
    return expression(op, argrepr, parts, "…")


def elements_at(sizes: list[int], elements: list[int], n: int) -> float:
    """A site's elements at ``n`` from the counted sizes: the power of n nearest the counts
    (0 for a constant), with the largest size's factor."""
    from overhead_tui.worker.counting.scaling import power_law

    if not elements or not elements[-1]:
        return 0.0
    power, factor = power_law(sizes[-1], elements[-1])
    return factor * float(n) ** power
