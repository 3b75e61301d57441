"""A site's expression and its operands, read from its source (``counting.sites``, steps 1
and 2): the syntax-tree node an instruction executes, found by its ``co_positions`` span, and
its operands evaluated again in the frame's variables where that has no side effects.
"""

from __future__ import annotations

import ast
import linecache
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

ITERATOR_TYPES = ("map", "zip", "filter", "enumerate", "reversed", "iter")
"""C types whose one-shot iterator an operand may be made by (built again per timing)."""
PURE_BUILTINS = ("len", "abs", "min", "max", "round", "int", "float", "range", "divmod", "pow")
"""Builtins an operand may call and still be evaluated again (their results are values)."""

_PURE_NODES = (
    ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.Tuple, ast.List,
    ast.UnaryOp, ast.BinOp, ast.Load, ast.operator, ast.unaryop, ast.expr_context,
)  # fmt: skip


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)

_BUILT_NODES = (
    *_PURE_NODES, *_COMPREHENSIONS, ast.comprehension, ast.Store, ast.Compare, ast.cmpop,
    ast.BoolOp, ast.boolop, ast.IfExp, ast.Call,
)  # fmt: skip


def built_value(node: ast.AST, names: dict[str, object]) -> bool:
    """Whether ``node`` is a list, set or dict comprehension with no side effects: over
    pure expressions, calling only :data:`PURE_BUILTINS` and :data:`ITERATOR_TYPES` that are
    the builtins themselves (``names``: what each name means in the frame).  Its value is a
    container that exists once the comprehension has run: evaluated once, it is the operand
    the C call that consumes it is timed at (``sum([...])``, ``math.fsum([...])``)."""
    if not isinstance(node, _COMPREHENSIONS):
        return False
    import builtins

    for n in ast.walk(node):
        if not isinstance(n, _BUILT_NODES):
            return False
        if isinstance(n, ast.Call):
            func = n.func
            if not isinstance(func, ast.Name) or n.keywords:
                return False
            if func.id not in PURE_BUILTINS + ITERATOR_TYPES:
                return False
            if names.get(func.id, getattr(builtins, func.id)) is not getattr(builtins, func.id):
                return False  # a name the kernel rebound
    return True


def pure(node: ast.AST) -> bool:
    """Whether ``node`` can be evaluated again without side effects the kernel would see:
    names, constants, attributes, subscripts, slices, tuples, lists and arithmetic."""
    return all(isinstance(n, _PURE_NODES) for n in ast.walk(node))


@dataclass
class Operand:
    """One operand of a site: a value, or a one-shot iterator's recipe (a C type and its
    operands, built again for each timed call)."""

    value: Any = None
    maker: object = None
    """The C iterator type (``map``) when the operand is built per call, else None."""
    parts: list[Operand] = field(default_factory=list)
    keyword: str | None = None
    """The name it is passed by (``out=tmp``), for a call's keyword argument."""


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


def operand_nodes(node: ast.AST, op: str) -> list[ast.expr] | None:
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


NUMPY_PURE_METHODS = frozenset(
    {"sum", "prod", "dot", "copy", "reshape", "transpose", "ravel", "flatten", "mean", "max",
     "min", "astype", "conj", "squeeze", "swapaxes", "cumsum", "round", "clip", "take"}
)  # fmt: skip
"""Array methods that return a new value and change nothing (``ndarray.sort``, ``fill``,
``put``, ``resize`` change their array: not among them)."""


def _numpy_value(
    node: ast.expr, scope: dict[str, object], globals_: dict[str, object]
) -> Operand | None:
    """A numpy call's value, evaluated once, when its operand is one: a numpy function or
    ufunc (not ``numpy.random``'s, no ``out=``), or a pure array method
    (:data:`NUMPY_PURE_METHODS`), on pure arguments.  These return a new array and change
    nothing, so ``C += np.outer(a, b)`` is timed at the array ``np.outer`` made, as the
    comprehension of ``sum([...])`` is; None for anything else."""
    if not isinstance(node, ast.Call) or any(k.arg in (None, "out") for k in node.keywords):
        return None
    if not all(pure(a) for a in (*node.args, *(k.value for k in node.keywords))):
        return None
    callee = evaluate(node.func, scope, globals_) if pure(node.func) else None
    if callee is None or callee.value is None:
        return None
    function = callee.value
    owner = getattr(function, "__self__", None)
    module = getattr(function, "__module__", None) or type(function).__module__ or ""
    if type(owner).__module__.split(".")[0] == "numpy" and hasattr(owner, "dtype"):
        if getattr(function, "__name__", "") not in NUMPY_PURE_METHODS:
            return None
    elif module.split(".")[0] != "numpy" or module.startswith("numpy.random"):
        return None
    try:
        value = eval(compile(ast.Expression(node), "<site>", "eval"), globals_, scope)
    except Exception:
        return None
    return Operand(value=value)


def evaluate(
    node: ast.expr, scope: dict[str, object], globals_: dict[str, object]
) -> Operand | None:
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
    if (value := _numpy_value(node, scope, globals_)) is not None:
        return value
    if built_value(node, {**globals_, **scope}):
        try:  # one namespace: a comprehension's own scope sees the frame's names in it
            value = eval(compile(ast.Expression(node), "<site>", "eval"), {**globals_, **scope})
        except Exception:
            return None
        return Operand(value=value)
    if isinstance(node, ast.Call) and not node.keywords:
        maker = evaluate(node.func, scope, globals_)
        if maker is None or not isinstance(maker.value, type):
            return None
        if maker.value.__module__ not in ("builtins", "itertools"):
            return None
        if maker.value.__name__ not in ITERATOR_TYPES and maker.value.__module__ == "builtins":
            return None
        parts = [evaluate(a, scope, globals_) for a in node.args]
        if any(p is None for p in parts):
            return None
        return Operand(maker=maker.value, parts=[p for p in parts if p is not None])
    return None
