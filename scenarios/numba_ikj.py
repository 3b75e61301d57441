"""The ikj loop compiled by numba with `fastmath=True`.

The inner loop streams contiguous rows of B and C, so LLVM vectorises it into SIMD multiply-adds
(fastmath allows reassociation and FMA contraction, which changes rounding within the
validation tolerance).  One core, no cache blocking: far from the dense kernel on large sizes.
"""

import numpy as np
from numba import njit

TITLE = "numba @njit(fastmath), ikj vectorised"
RUNG = 12
SETS = ('default', 'compilers')
LAYERS = ("simd_compute", "memory")
REMOVES = ("scalar_compute",)
DEFAULT_SIZE = 512
MAX_SIZE = 4096
SHAPES = True  # any A (m×k)·B (k×n)
REQUIRES = ("numba",)


@njit(fastmath=True, cache=False)
def _matmul_ikj(a, b):
    n, p = a.shape
    m = b.shape[1]
    c = np.zeros((n, m), dtype=a.dtype)
    for i in range(n):
        for k in range(p):
            aik = a[i, k]
            for j in range(m):
                c[i, j] += aik * b[k, j]
    return c


def kernel(a, b):
    return _matmul_ikj(a, b)
