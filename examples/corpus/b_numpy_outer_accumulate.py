"""Matrix product as a sum of rank-one updates, C += np.outer(A[:, k], B[k, :]) over k,
the way linear-algebra lecture notebooks illustrate the column-row view of multiplication."""

import numpy as np

TITLE = "numpy outer-product accumulation"
RUNG = 78
LAYERS = ("simd_compute", "memory", "library_layers")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)


def kernel(A, B):
    n = A.shape[0]
    C = np.zeros((n, B.shape[1]))
    for k in range(A.shape[1]):
        C += np.outer(A[:, k], B[k, :])
    return C
