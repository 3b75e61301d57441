"""The symbol -> layer map: which overhead layer a native symbol's self time belongs to.

Data-driven: ``SYMBOL_RULES`` is an ordered list of (regular expression on the symbol,
regular expression on the library, layer); the first match wins.  Sources: CPython 3.11's
``Python/ceval.c`` (the eval loop), ``Objects/floatobject.c`` and ``Objects/longobject.c``
(boxing), ``Objects/listobject.c`` (containers), ``Objects/abstract.c`` (type-slot dispatch),
numpy's ``multiarray``/``umath`` modules, and OpenBLAS's kernel naming (``dgemm_kernel``,
``sgemm_*``).  A perf profile of the pure-Python ladder on the reference machine (README)
shows the eval loop at about 62–80 %, float creation and deallocation at about 10–18 %.
"""

from __future__ import annotations

import re

from overhead_tui.plugins.scenarios import ScenarioSpec

COMPILED = "compiled"
"""Pseudo-layer of JIT code (numba) and unresolved addresses; a backend turns it into the
compute layer the scenario carries (``simd_compute`` or ``scalar_compute``)."""

SYMBOL_RULES: list[tuple[str, str, str]] = [
    # (symbol regex, library regex, layer)
    (
        r"^_PyEval_EvalFrameDefault|^_PyEval_Vector|^_PyFrame_|^_PyEvalFrameClearAndPop|"
        r"^PyEval_|^_Py_HandlePending|^_PyEval_",
        r"",
        "interpreter_dispatch",
    ),
    (
        r"^PyFloat_FromDouble$|^float_dealloc$|^_PyFloat_|^PyLong_FromLong$|^_PyLong_New$|"
        r"^PyLong_FromSsize_t$|^_Py_NewReference$|^_Py_Dealloc$|^_PyObject_Malloc|"
        r"^_PyObject_Free|^PyObject_Malloc$|^PyObject_Free$|^pymalloc_|^long_dealloc$|"
        r"^_Py_DECREF|^_Py_INCREF|^object_dealloc$",
        r"",
        "boxing",
    ),
    (
        r"^list_subscript$|^list_item$|^list_ass_|^listiter_|^tuple_|^PyList_|^PyTuple_|"
        r"^array_subscr$|^array_ass_subscr$|^getarrayitem$|^d_getitem$|^f_getitem$|"
        r"^d_setitem$|^f_setitem$|^array_item$|^array_ass_item$",
        r"libpython|python|array",
        "container_access",
    ),
    (
        r"^PyNumber_|^binary_op|^float_mul$|^float_add$|^float_sub$|^PyObject_GetItem$|"
        r"^PyObject_SetItem$|^long_add$|^long_mul$|^long_sub$|^_PyLong_Add$|^_PyLong_Multiply$|"
        r"^PyObject_RichCompare|^do_richcompare$",
        r"",
        "dynamic_dispatch",
    ),
    (
        r"^_PyObject_Vectorcall|^PyObject_Vectorcall|^_PyFunction_Vectorcall$|^cfunction_|"
        r"^method_vectorcall|^_PyObject_MakeTpCall$|^PyObject_Call|^gen_|^_PyGen_",
        r"",
        "call_overhead",
    ),
    (
        r"^rangeiter_next$|^range_iter|^PyIter_|^zip_next$|^enum_next$|^builtin_sum",
        r"",
        "interpreter_dispatch",
    ),
    (r"", r"^\[kernel|vmlinux", "other"),
    (
        r"^blas_thread_server$|^sched_yield$|^__sched_yield$|^pthread_|^exec_blas|"
        r"^__kmp|^gomp_|^GOMP_",
        r"",
        "parallel",
    ),
    (r"", r"libgomp|libiomp|libomp", "parallel"),
    (r"", r"(^|/)_overhead_", COMPILED),  # the rungs' own extension modules (a name or path)
    (
        r"gemm|^[sdcz]gemv|_kernel_[A-Za-z0-9]*$|^dgemm|^sgemm|inner_thread|^gemm_thread",
        r"openblas|blas|mkl",
        "dense_kernel",
    ),
    (r"", r"openblas|libmkl|libblas", "dense_kernel"),
    (r"", r"_multiarray_umath|_umath|numpy", "library_layers"),
    (r"", r"^\[JIT\]|^\[unknown\]$|^\?\?\?$|^perf-[0-9]+\.map$|numba|llvmlite", COMPILED),
    (r"^_*(memset|memcpy|memmove)", r"", "memory"),
]
"""Ordered rules: (symbol regex, library regex, layer); an empty regex matches anything."""

_COMPILED = [(re.compile(s), re.compile(lib), layer) for s, lib, layer in SYMBOL_RULES]


def classify(symbol: str, library: str = "") -> str:
    """The layer of a native ``symbol`` found in ``library`` (a file name or perf's dso).

    Unmatched symbols go to ``other``; kernel time (perf's ``[kernel.kallsyms]``) is ``other``
    (system time); JIT code and unresolved addresses are ``compiled`` (see ``COMPILED``).
    """
    symbol = re.sub(r"'\d+$", "", symbol)  # callgrind marks recursion levels as name'2
    for symbol_re, library_re, layer in _COMPILED:
        if symbol_re.pattern and not symbol_re.search(symbol):
            continue
        if library_re.pattern and not library_re.search(library):
            continue
        return layer
    return "other"


def library_name(path: str) -> str:
    """A short library label from a path or dso: ``libpython3.11.so.1.0`` -> ``libpython3.11``."""
    name = path.rsplit("/", 1)[-1]
    return re.sub(r"(\.cpython-[^.]*)?\.so(\.[0-9.]+)?$", "", name) or name


def compiled_layer(spec: ScenarioSpec) -> str:
    """The compute layer a scenario's JIT or C code counts as in a profile."""
    return "simd_compute" if "simd_compute" in spec.layers else "scalar_compute"
