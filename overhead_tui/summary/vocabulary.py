"""The summary's vocabulary: the names every part of the package shares.

Statuses of a scenario, dtypes and their sizes, and the class of bytecode instructions the
model charges to dynamic dispatch.  Layers have their own module (``summary.layers``).
"""

from __future__ import annotations

from typing import Literal, get_args

DTYPE_ITEMSIZE: dict[str, int] = {
    "float64": 8,
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "int8": 1,
}
"""Bytes per element of each supported dtype: IEEE 754 binary64, binary32 and binary16, Google's
bfloat16 (binary32's exponent, 8 significand bits), and int8 (products accumulated in int32)."""

PRECISION_FAMILIES: dict[str, tuple[str, ...]] = {
    "bfloat16": ("amx_bf16", "avx512_bf16"),
    "float16": ("avx512_fp16",),
    "int8": ("amx_int8", "avx512_vnni"),
}
"""The instruction families (``precision_peak`` probe) that compute each lower precision."""
FAMILY_DTYPES: dict[str, str] = {f: d for d, fs in PRECISION_FAMILIES.items() for f in fs}
"""The dtype each lower-precision instruction family computes."""

FLOAT_DTYPES: tuple[str, ...] = ("float64", "float32")
"""The dtypes every rung but the lower-precision ones computes (the others:
:data:`PRECISION_FAMILIES`)."""

INTEGER_DTYPES = frozenset({"int8"})
"""Dtypes whose operations are integer OPs, not FLOPs (rates in GOP/s)."""


def rate_unit(dtype: str) -> str:
    """``GOP/s`` for an integer dtype, ``GFLOP/s`` otherwise: the unit of a rung's speed."""
    return "GOP/s" if dtype in INTEGER_DTYPES else "GFLOP/s"


Status = Literal["ok", "invalid", "impossible", "error", "timeout", "crashed", "skipped"]
STATUSES: tuple[str, ...] = get_args(Status)
"""Final statuses of a scenario.  Only ``ok`` carries a speed.  ``invalid``: a wrong product;
``impossible``: timed faster than the hardware's theoretical peak (``limits.reject_impossible``),
so the product was cached or not computed."""
FAILED: frozenset[str] = frozenset({"invalid", "impossible", "error", "timeout", "crashed"})
"""The statuses of a scenario that went wrong (``skipped`` is no failure: it did not run)."""
NOT_RUN_YET = "not run"
"""The error of a planned scenario's result before its worker ran (status ``skipped``)."""

GENERIC_OPS = frozenset(
    {
        "BINARY_OP",
        "BINARY_OP_ADAPTIVE",
        "BINARY_SUBSCR",
        "BINARY_SUBSCR_ADAPTIVE",
        "STORE_SUBSCR",
        "STORE_SUBSCR_ADAPTIVE",
    }
)
"""Unspecialised arithmetic and subscript instructions (``*_ADAPTIVE`` is the name 3.11 shows
for one that failed to specialise): they dispatch on the operands' types through type slots
(``PyNumber_Multiply``, ``PyObject_GetItem``), the ``dynamic_dispatch`` layer."""

FLOAT_RESULT_OPS = frozenset(
    {"BINARY_OP_ADD_FLOAT", "BINARY_OP_SUBTRACT_FLOAT", "BINARY_OP_MULTIPLY_FLOAT"}
)
"""Specialised float arithmetic (CPython 3.11–3.13 names): the interpreter's inlined fast path
for two floats.  Compiled untyped (Cython), each is a call through the generic number
protocol (``PyNumber_Multiply``, ``PyNumber_InPlaceAdd``) instead."""
INT_RESULT_OPS = frozenset(
    {"BINARY_OP_ADD_INT", "BINARY_OP_SUBTRACT_INT", "BINARY_OP_MULTIPLY_INT"}
)
"""Specialised int arithmetic (CPython 3.11–3.13 names): each allocates its result unless it
falls in the small-int cache (−5…256), as index arithmetic such as ``i * n + k`` does not at
the ladder's sizes.  The model prices each at the ``boxing`` probe's ``int_ns``."""

GENERATOR_RESUMPTIONS = frozenset({"YIELD_VALUE"})
"""One per item a generator hands to its consumer (CPython 3.11–3.13): the model prices each at
the ``call_overhead`` probe's ``generator_item_ns`` instead of a function call."""


NUMPY_SWEPT_KINDS: tuple[str, ...] = (
    "elementwise",
    "elementwise_out",
    "broadcast",
    "outer",
    "reduce",
    "reduce_outer",
    "einsum",
    "create",
    "dot",
    "gemv",
)
"""Kinds of numpy operation the ``numpy_call`` probe times at a sweep of sizes (``KIND_call_ns``,
``KIND_elements``, ``KIND_ns_per_element``)."""
NUMPY_KINDS: tuple[str, ...] = (
    *NUMPY_SWEPT_KINDS,
    "view",
    "scalar_index",
    "scalar_store",
    "scalar_operand",
    "inner_loops",
    "blas",
    "other",
)
"""Every kind of numpy operation the counting phase tells apart (``worker.counting
.numpy_census``): the swept ones, then those with a fixed cost only, BLAS, and the rest."""
