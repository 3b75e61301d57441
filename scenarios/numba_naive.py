"""The naive ijk triple loop compiled to machine code by numba (`@njit`).

No interpreter, no boxing: scalar machine code.  The inner loop walks B by column (stride n),
so it misses the cache on large matrices and cannot be vectorised: scalar compute and memory
latency remain.  The first call's JIT compilation is reported apart as compile time.
"""

import numpy as np
from numba import njit

TITLE = "numba @njit, ijk scalar loop"
RUNG = 10
SETS = ('compilers',)
LAYERS = ("scalar_compute", "memory")
REMOVES = ("library_layers",)
DEFAULT_SIZE = 384
MAX_SIZE = 4096
REQUIRES = ("numba",)


@njit(cache=False)
def _matmul_ijk(a, b):
    n, p = a.shape
    m = b.shape[1]
    c = np.zeros((n, m), dtype=a.dtype)
    for i in range(n):
        for j in range(m):
            s = c[i, j]  # a zero of the result dtype
            for k in range(p):
                s += a[i, k] * b[k, j]
            c[i, j] = s
    return c


def kernel(a, b):
    return _matmul_ijk(a, b)
