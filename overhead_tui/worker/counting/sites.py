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
import bisect
import dis
import linecache
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

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

ITERATOR_TYPES = ("map", "zip", "filter", "enumerate", "reversed", "iter")
PURE_BUILTINS = ("len", "abs", "min", "max", "round", "int", "float", "range", "divmod", "pow")
"""Builtins an operand may call and still be evaluated again (their results are values)."""
"""C types whose one-shot iterator an operand may be made by (built again per timing)."""

_PURE_NODES = (
    ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List,
    ast.UnaryOp, ast.BinOp, ast.Load, ast.operator, ast.unaryop, ast.expr_context,
)  # fmt: skip


def pure(node: ast.AST) -> bool:
    """Whether ``node`` can be evaluated again without side effects the kernel would see:
    names, constants, attributes, subscripts, slices, tuples, lists and arithmetic."""
    return all(isinstance(n, _PURE_NODES) for n in ast.walk(node))


@dataclass
class Operand:
    """One operand of a site: a value, or a one-shot iterator's recipe (a C type and its
    operands, built again for each timed call)."""

    value: Any = None
    maker: Any = None
    """The C iterator type (``map``) when the operand is built per call, else None."""
    parts: list[Operand] = field(default_factory=list)
    keyword: str | None = None
    """The name it is passed by (``out=tmp``), for a call's keyword argument."""


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


_LIBRARY_ROOTS = _library_roots()


def _node_index(filename: str) -> dict[tuple[int, int, int, int], list[ast.AST]]:
    """{(line, end line, column, end column): nodes} of a source file (cached)."""
    found = _INDEX.get(filename)
    if found is not None:
        return found
    index: dict[tuple[int, int, int, int], list[ast.AST]] = {}
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            end, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
            if end is not None and end_col is not None:
                key = (getattr(node, "lineno", 0), end, getattr(node, "col_offset", 0), end_col)
                index.setdefault(key, []).append(node)
    _INDEX[filename] = index
    return index


_INDEX: dict[str, dict[tuple[int, int, int, int], list[ast.AST]]] = {}

_NODE_TYPES: dict[str, tuple[type[ast.AST], ...]] = {
    "BINARY_OP": (ast.BinOp, ast.AugAssign),
    "BINARY_SUBSCR": (ast.Subscript,),
    "STORE_SUBSCR": (ast.Subscript,),
    "COMPARE_OP": (ast.Compare,),
    "CONTAINS_OP": (ast.Compare,),
    "BUILD_TUPLE": (ast.Tuple,),
    "CALL": (ast.Call,),
}


def site_node(code: CodeType, offset: int, op: str) -> ast.AST | None:
    """The syntax-tree node an instruction executes, by its source span; None without one."""
    positions = list(code.co_positions())
    if offset // 2 >= len(positions):
        return None
    line, end, col, end_col = positions[offset // 2]
    if line is None or end is None or col is None or end_col is None:
        return None
    nodes = _node_index(code.co_filename).get((line, end, col, end_col), [])
    return next((n for n in nodes if isinstance(n, _NODE_TYPES[op])), None)


def _operand_nodes(node: ast.AST, op: str) -> list[ast.expr] | None:
    """The operand expressions of a site's node, in the order the timing uses them."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.AugAssign):
        target = node.target
        if not isinstance(target, ast.Name | ast.Subscript | ast.Attribute):
            return None
        return [ast.parse(ast.unparse(target), mode="eval").body, node.value]  # read, not set
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, ast.Compare):
        return [node.left, node.comparators[0]] if len(node.ops) == 1 else None
    if isinstance(node, ast.Tuple):
        return list(node.elts)
    if isinstance(node, ast.Call):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            return None
        return [node.func, *node.args, *(k.value for k in node.keywords)]
    return None


def _evaluate(node: ast.expr, scope: dict[str, Any], globals_: dict[str, Any]) -> Operand | None:
    """An operand evaluated again (module doc, step 2); None where that is not safe."""
    if pure(node):
        try:
            value = eval(compile(ast.Expression(node), "<site>", "eval"), globals_, scope)
        except Exception:
            return None
        if not isinstance(value, type) and hasattr(type(value), "__next__"):  # one-shot
            return None
        return Operand(value=value)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in PURE_BUILTINS
        and not node.keywords
        and all(pure(a) for a in node.args)
        and scope.get(node.func.id, globals_.get(node.func.id)) is None
    ):
        try:
            value = eval(compile(ast.Expression(node), "<site>", "eval"), globals_, scope)
        except Exception:
            return None
        return Operand(value=value)
    if isinstance(node, ast.Call) and not node.keywords:
        maker = _evaluate(node.func, scope, globals_)
        if maker is None or not isinstance(maker.value, type):
            return None
        if maker.value.__module__ not in ("builtins", "itertools"):
            return None
        if maker.value.__name__ not in ITERATOR_TYPES and maker.value.__module__ == "builtins":
            return None
        parts = [_evaluate(a, scope, globals_) for a in node.args]
        if any(p is None for p in parts):
            return None
        return Operand(maker=maker.value, parts=[p for p in parts if p is not None])
    return None


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


def _touched(op: str, operands: list[Operand], values: list[Any]) -> int:
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


def _float_array(value: Any) -> bool:
    """An ``array.array`` of floats (its reads and writes have a probe of their own)."""
    return type(value).__name__ == "array" and getattr(value, "typecode", "") in ("d", "f")


def _is_numpy(value: Any) -> bool:
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
        self._starts: dict[CodeType, list[int]] = {}

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
        nodes = _operand_nodes(node, op)
        operands: list[Operand] | None = None
        why = "its form is not timed alone (a starred argument, a chained comparison)"
        if nodes is not None:
            scope = dict(frame.f_locals)
            evaluated = [_evaluate(n, scope, frame.f_globals) for n in nodes]
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

    def _instruction_at(self, code: CodeType, lasti: int) -> int:
        """The offset of the instruction ``f_lasti`` is in (3.11 leaves it on a call's last
        inline cache entry when it enters a Python frame)."""
        starts = self._starts.get(code)
        if starts is None:
            starts = [i.offset for i in dis.get_instructions(code)]
            self._starts[code] = starts
        return starts[max(0, bisect.bisect_right(starts, lasti) - 1)] if starts else lasti

    def library(self, code: CodeType) -> bool:
        """Code of an installed library or the standard library, not the user's."""
        found = self._library.get(code.co_filename)
        if found is None:
            found = code.co_filename.startswith(_LIBRARY_ROOTS)
            self._library[code.co_filename] = found
        return found

    def entered(self, frame: FrameType) -> None:
        """A Python frame was entered: from a site, library code becomes that site's (its
        timing has it), the user's own code makes the site untimed."""
        owner = self.owner
        if owner is not None:
            owner.inside_calls += 1
            if not self.library(frame.f_code):
                owner.reaches_python = True
            return
        parent = frame.f_back
        if parent is None:
            return
        site = self.sites.get((parent.f_code, self._instruction_at(parent.f_code, parent.f_lasti)))
        if site is None:
            return
        if site.operands is not None and self.library(frame.f_code):
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


def operand_text(operand: Operand, leaf: Callable[[Any], str]) -> str:
    """An operand as source: ``leaf(value)`` for a value, a rebuilt iterator as its call (a
    keyword argument as ``name=…``)."""
    named = f"{operand.keyword}=" if operand.keyword else ""
    if operand.maker is not None:
        inner = ", ".join(operand_text(p, leaf) for p in operand.parts)
        return f"{named}{leaf(operand.maker)}({inner})"
    return named + leaf(operand.value)


def _label(op: str, argrepr: str, operands: list[Operand]) -> str:
    """What runs, its operands named by type and size (``numpy.dot(ndarray[20] float64, …)``)."""

    def leaf(value: Any) -> str:
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
