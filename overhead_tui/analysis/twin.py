"""How a compiled-Python rung is predicted from its Python twin (the same source run as
bytecode, counted by the worker): which of the twin's events it still pays, and at which
price where its compiler does the same work another way than the interpreter.

The layers it pays are its compiler's (:data:`KEPT_LAYERS`: what that compiler's code still
does of the interpreter's work, never what the rung's file declares); the prices that differ
are read here, each from a probe that times the same operation compiled by the same tool.
"""

from __future__ import annotations

from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.codec import Interval

TWIN_PREDICTION = (
    "its Python twin's counted events × probed unit costs, without the layers its compiler removes"
)
"""How a compiled-Python rung (Cython, mypyc) is predicted: the events of the same source run
as bytecode, priced only for the layers the compiled code still carries."""

KEPT_LAYERS: dict[str, frozenset[str]] = {
    "Cython": frozenset({"boxing", "dynamic_dispatch", "container_access", "call_overhead"}),
    "Nuitka": frozenset({"boxing", "dynamic_dispatch", "container_access", "call_overhead"}),
    "mypyc": frozenset({"container_access"}),
}
"""Of a twin's priced layers, those its compiler's code still pays. Cython's untyped C (read
from its generated ``.c``: ``PyNumber_Multiply``, ``__Pyx_GetItemInt_Fast``,
``PyFloat_FromDouble``) drops the eval loop and keeps the objects, the subscripts, the number
protocol and the calls; Nuitka's (its module's ``.c``: ``LOOKUP_SUBSCRIPT``,
``BINARY_OPERATION_MULT_OBJECT_OBJECT_OBJECT``, ``INPLACE_OPERATION_ADD_OBJECT_OBJECT``) the
same; mypyc's native floats (``CPyList_GetItem`` then ``PyFloat_AsDouble``) keep only the list
subscripts.  Another compiler: every layer but the eval loop's dispatch
(:data:`DISPATCH_FREE`)."""
DISPATCH_FREE = frozenset(
    {"boxing", "dynamic_dispatch", "container_access", "call_overhead", "library_layers"}
)


def kept_layers(compiler: str) -> frozenset[str]:
    """The layers of its Python twin a rung built by ``compiler`` still pays."""
    return KEPT_LAYERS.get(compiler, DISPATCH_FREE)


C_API_COMPILERS = frozenset({"mypyc"})
"""Compilers whose list subscripts are out-of-line C-API calls that unbox the element
(mypyc's ``CPyList_GetItem`` + ``PyFloat_AsDouble``): a twin's list loads are priced at the
``container_access`` probe's mypyc-compiled subscript (``c_api_load_ns``), not the
interpreter's inlined one.  Cython's untyped code inlines the list fast path and keeps the
float boxed: the interpreter's price."""
NUMBER_PROTOCOL_COMPILERS = frozenset({"Cython", "Nuitka"})
"""Compilers whose untyped float arithmetic calls the generic number protocol
(``PyNumber_Multiply``, ``PyNumber_InPlaceAdd``; Nuitka's ``BINARY_OPERATION_MULT_OBJECT_OBJECT
_OBJECT`` looks up and calls the operands' ``nb_multiply`` slots the same way,
``nuitka/build/static_src/HelpersOperationBinaryMult.c``): a twin's specialised float ops
(``vocabulary.FLOAT_RESULT_OPS``) carry, besides the float each creates (``boxing``), the
protocol's excess over the interpreter's inlined op."""


MAPPING_PROTOCOL_COMPILERS = frozenset({"Nuitka"})
"""Compilers whose subscripts with an object index call the type's mapping slot (Nuitka's
``LOOKUP_SUBSCRIPT``: ``tp_as_mapping->mp_subscript``, list's ``list_subscript``, which checks
and converts the index; ``nuitka/build/include/nuitka/helper/subscripts.h``): a twin's list
loads are priced at the ``boxing`` probe's Cython-compiled subscript of the same kind
(``c_api_subscript_ns``), where the interpreter reads a list item inline."""


def c_api_load(costs: UnitCosts, compiler: str) -> tuple[str, str] | None:
    """(the ``UnitCosts`` field, the unit) a twin built by ``compiler`` has its list loads
    priced at; None: the interpreter's own price."""
    if compiler in MAPPING_PROTOCOL_COMPILERS and costs.c_api_subscript_ns is not None:
        return "c_api_subscript_ns", f"ns/load through the mapping protocol ({compiler})"
    if compiler not in C_API_COMPILERS or costs.c_api_load_ns is None:
        return None
    return "c_api_load_ns", f"ns/load through the C API ({compiler})"


def number_protocol_ns(costs: UnitCosts, compiler: str) -> tuple[float, Interval] | None:
    """(ns, its interval) a float op of a twin built by ``compiler`` pays beyond the
    interpreter's inlined one: the ``boxing`` probe's Cython-compiled multiply minus its
    interpreted one, both timed in one probe run (the float each creates is in both); the
    interval is the compiled multiply's, less the same interpreted value.  None for other
    compilers or without the probe detail."""
    if compiler not in NUMBER_PROTOCOL_COMPILERS:
        return None
    compiled, interval = costs.c_api_float_ns, costs.interval("c_api_float_ns")
    if compiled is None or interval is None or costs.boxing_ns is None:
        return None
    low, high = (max(0.0, x - costs.boxing_ns) for x in interval)
    return max(0.0, compiled - costs.boxing_ns), (low, high)
