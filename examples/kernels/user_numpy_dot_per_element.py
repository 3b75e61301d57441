"""A user's loop calling numpy once per element of C: `np.dot(a[i], bt[j])`.

Every multiply-add of a row-column product runs in BLAS's dot kernel, but each of the n²
calls pays numpy's dispatch, two views and a scalar write back into C.
"""

import numpy as np

TITLE = "Your loop: np.dot per element"
RUNG = 6
LAYERS = ("interpreter_dispatch", "library_layers", "simd_compute", "memory")
REMOVES = ("boxing", "dynamic_dispatch", "container_access", "scalar_compute")
DEFAULT_SIZE = 128
MAX_SIZE = 1024


def setup(a, b):
    return a.copy(), np.ascontiguousarray(b.T)


def kernel(a, bt):
    n, m = a.shape[0], bt.shape[0]
    c = np.empty((n, m), dtype=a.dtype)
    for i in range(n):
        row = a[i]
        for j in range(m):
            c[i, j] = np.dot(row, bt[j])
    return c
