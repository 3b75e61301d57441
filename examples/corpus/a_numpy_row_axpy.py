"""Row-at-a-time numpy: each row of C built as a sum over k of A[i, k] * B[k, :], i.e. the
'ikj' loop with the innermost loop replaced by a vector operation, as in numerical-methods notes."""

import numpy as np

TITLE = "Numpy per-row accumulation of A[i,k]*B[k,:]"
RUNG = 79
LAYERS = ("library_layers", "interpreter_dispatch", "simd_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def kernel(A, B):
    n, m = A.shape
    C = np.empty((n, B.shape[1]))
    for i in range(n):
        row = np.zeros(B.shape[1])
        for k in range(m):
            row += A[i, k] * B[k, :]
        C[i, :] = row
    return C
