"""The vectorised ikj loop with the rows of C split across cores by numba's `prange`.

Each thread owns a block of rows, so there is no synchronisation inside the loop; the cost left
is starting and joining the thread team per call and the shared memory bandwidth.  Uses all
numba threads (NUMBA_NUM_THREADS, default: the logical CPUs).
"""

import numpy as np
from numba import njit, prange

TITLE = "numba parallel, prange over rows"
RUNG = 15
SETS = ('compilers',)
LAYERS = ("simd_compute", "memory", "parallel")
DEFAULT_SIZE = 512
MAX_SIZE = 4096
REQUIRES = ("numba",)


@njit(parallel=True, fastmath=True, cache=False)
def _matmul_ikj_parallel(a, b):
    n, p = a.shape
    m = b.shape[1]
    c = np.zeros((n, m), dtype=a.dtype)
    for i in prange(n):
        for k in range(p):
            aik = a[i, k]
            for j in range(m):
                c[i, j] += aik * b[k, j]
    return c


def kernel(a, b):
    return _matmul_ikj_parallel(a, b)
