"""The ikj loop over float64 numpy arrays, compiled ahead of time by Pythran: plain
numpy-style Python with one ``#pythran export`` line (the argument types) and no other
declaration, translated into C++ and compiled by Pythran's build_ext.

No Python object is touched inside the loops: Pythran indexes numpy's buffers directly and
keeps the scalar ``a[i, k]`` in a register.  Unlike the ijk rungs (``c_naive_O2``,
``cython_typed``), whose running sum is one chain of dependent adds down B's column, each
multiply-add here reads ``b[k, j]`` and ``c[i, j]`` along rows and writes ``c[i, j]`` back:
no loop-carried chain and contiguous rows.  Built with Python's own flags (``-O3``, last on
the line), gcc vectorises the j loop at the baseline ISA (SSE2, 128 bits, no
``-march=native``: ``c_ikj_O3_native`` is the same loop at the CPU's widest vectors).
"""

TITLE = "Pythran, ikj over float64 arrays"
RUNG = 10
SETS = ('compilers',)
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 4096
DTYPES = ("float64",)
REQUIRES = ("pythran",)
COMPILER = "pythran"
SOURCE = r"""
import numpy as np


#pythran export kernel(float64[:, :], float64[:, :])
def kernel(a, b):
    n, p = a.shape
    m = b.shape[1]
    c = np.zeros((n, m))
    for i in range(n):
        for k in range(p):
            aik = a[i, k]
            for j in range(m):
                c[i, j] += aik * b[k, j]
    return c
"""
"""The module Pythran compiles (a ``.py``, valid Python too): float64 only, so the one loop
in its assembly is the one timed."""
