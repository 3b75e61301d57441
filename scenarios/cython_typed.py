"""The ijk loop in Cython with typed memoryviews (``double[:, ::1]``), no bounds or
negative-index checks and a C accumulator: plain C loops, as ``c_naive_O2``.

No Python object is touched inside the loops: the memoryviews index numpy's buffers directly
and the sum lives in a register.  What remains is the scalar multiply-add chain and the walk
down B's columns (stride n), latency- and cache-bound like the C rung.
"""

import numpy as np

from overhead_tui.api import compile_python

NAME = "cython_typed"
TITLE = "Cython, ijk over typed memoryviews"
RUNG = 9
SETS = ('default', 'compilers')
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 4096
DTYPES = ("float64",)
REQUIRES = ("Cython",)
SOURCE = r"""
cimport cython


@cython.boundscheck(False)
@cython.wraparound(False)
def matmul(const double[:, ::1] a, const double[:, ::1] b, double[:, ::1] c):
    cdef Py_ssize_t n = a.shape[0], p = b.shape[0], m = b.shape[1]
    cdef Py_ssize_t i, j, k
    cdef double s
    for i in range(n):
        for j in range(m):
            s = 0
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s
"""
"""The module Cython compiles (a ``.pyx``): float64 only, so the one loop in its assembly is
the one timed (a fused float/double type made two, and the model read the float one)."""


def setup(a, b):
    compiled = compile_python(NAME, SOURCE, "cython")
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return compiled.matmul, a, b, np.zeros_like(a)


def kernel(compiled_matmul, a, b, c):
    compiled_matmul(a, b, c)
    return c
