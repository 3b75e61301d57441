"""A compiled-Python rung: a scenario whose kernel is ``SOURCE`` compiled by ``COMPILER``.

A scenario file that declares ``SOURCE`` (a module defining ``kernel``) and ``COMPILER``
(``"cython"``, ``"mypyc"``, ``"pythran"`` or ``"nuitka"``: ``kit.pybuild.TOOLS``) and defines
no ``kernel`` is a compiled-Python rung by its declarations alone, as a C rung is by ``SOURCE``
and ``FLAGS`` (``kit.c_rung``): the worker completes it (:func:`complete`). Its ``setup``
builds the module (``kit.pybuild.compile_python``, recorded in ``kit.builds``) and hands the
compiled ``kernel`` the file's own ``setup``'s arguments (``a.tolist(), b.tolist()`` for a loop
over lists) or, without one, A and B as the worker made them. Where the compiler reads plain
Python (:data:`TWIN_COMPILERS`) and ``SOURCE`` is Python, the counting phase counts ``SOURCE``
run as bytecode, its Python twin (``counted_kernel``, ``kit.pybuild.python_twin``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from types import ModuleType

from overhead_tui.kit.builds import errors_in_file
from overhead_tui.kit.pybuild import compile_python, python_twin

TWIN_COMPILERS = ("cython", "mypyc", "nuitka")
"""Compilers whose source may be plain Python (Cython's untyped ``.pyx``, mypyc's annotated
``.py``, Nuitka's unchanged ``.py``): its events run as bytecode are what the model prices
without the layers the compiler removes.  Pythran's source is Python too, but its rung is
priced from its assembly."""


MISSING_KERNEL = {
    "cython": "SOURCE defines no kernel; fix: define kernel(a, b) in SOURCE (a def or cpdef)",
    "mypyc": "SOURCE defines no kernel; fix: define kernel(a, b) in SOURCE",
    "pythran": "SOURCE exports no kernel; fix: define kernel(a, b) in SOURCE and export it "
    "with a `#pythran export kernel(float64[:, :], float64[:, :])` line",
}
"""The one line for a built module without a ``kernel`` (Pythran builds only what it exports)."""


def is_declared(module: ModuleType) -> bool:
    """True when ``module`` is a compiled-Python rung by its declarations: ``SOURCE`` and
    ``COMPILER`` (both str), and no ``kernel`` of its own."""
    declared = all(isinstance(getattr(module, key, None), str) for key in ("SOURCE", "COMPILER"))
    return declared and not hasattr(module, "kernel")


def complete(module: ModuleType) -> None:
    """Give a declared compiled-Python rung (:func:`is_declared`) its ``setup``, ``kernel`` and,
    for a Python source of a :data:`TWIN_COMPILERS` compiler, ``counted_kernel``; anything
    else is left as it is."""
    if not is_declared(module):
        return
    name, source, compiler = module.NAME, module.SOURCE, module.COMPILER
    own_setup: Callable[..., object] | None = getattr(module, "setup", None)

    def setup(a: object, b: object) -> tuple[object, ...]:
        with errors_in_file(module):
            compiled = compile_python(name, source, compiler)
        if not callable(getattr(compiled, "kernel", None)):
            raise AttributeError(MISSING_KERNEL.get(compiler, MISSING_KERNEL["mypyc"]))
        if compiler == "pythran" and (unexported := _unexported_dtype(source, a)):
            raise TypeError(unexported)
        arguments = own_setup(a, b) if own_setup is not None else (a, b)
        # one argument, or several as a tuple, as the worker passes any scenario's
        return (compiled.kernel, *(arguments if isinstance(arguments, tuple) else (arguments,)))

    def kernel(compiled_kernel: Callable[..., object], *arguments: object) -> object:
        return compiled_kernel(*arguments)

    def counted_kernel(compiled_kernel: Callable[..., object], *arguments: object) -> object:
        return python_twin(name, source).kernel(*arguments)

    setattr(module, "setup", setup)  # noqa: B010 (a module's attribute, set at run time)
    setattr(module, "kernel", kernel)  # noqa: B010
    if compiler in TWIN_COMPILERS and _is_python(source) and not hasattr(module, "counted_kernel"):
        setattr(module, "counted_kernel", counted_kernel)  # noqa: B010


def _unexported_dtype(source: str, a: object) -> str | None:
    """Why Pythran's ``kernel`` cannot take ``a``'s dtype (its ``#pythran export kernel(...)``
    line names others), with the fix; None when the line names it or cannot be read."""
    line = next((x for x in source.splitlines() if "#pythran export kernel(" in x), None)
    dtype = str(getattr(a, "dtype", ""))
    types = set(re.findall(r"\b((?:float|int|uint|complex)\d+)\b", line or ""))
    if not types or not dtype or dtype in types:
        return None
    exported = ", ".join(sorted(types))
    return (
        f"SOURCE exports kernel for {exported} only, not {dtype}; fix: declare DTYPES = "
        f"({', '.join(repr(t) for t in sorted(types))},) or export {dtype} too"
    )


def _is_python(source: str) -> bool:
    """True when ``source`` parses as Python (an untyped ``.pyx`` does; ``cdef`` does not)."""
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True
