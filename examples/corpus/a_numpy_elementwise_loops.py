"""A beginner's numpy: arrays from np.zeros, but still three Python for-loops indexing
A[i, k] * B[k, j] one element at a time, common in first-week course notebooks."""

import numpy as np

TITLE = "Numpy arrays indexed element by element"
RUNG = 55
LAYERS = ("library_layers", "boxing", "interpreter_dispatch", "dynamic_dispatch")
DEFAULT_SIZE = 32
MAX_SIZE = 128
DTYPES = ("float64",)


def setup(a, b):
    return np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)


def kernel(A, B):
    n, m = A.shape
    p = B.shape[1]
    C = np.zeros((n, p))
    for i in range(n):
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += A[i, k] * B[k, j]
            C[i, j] = s
    return C
