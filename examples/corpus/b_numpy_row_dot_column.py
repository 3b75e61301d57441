"""Double loop over NumPy arrays calling the ndarray .dot method on a row and a column
per element, a common first attempt in data-science tutorial notebooks."""

import numpy as np

TITLE = "numpy row.dot(column) double loop"
RUNG = 72
LAYERS = ("library_layers", "call_overhead", "dynamic_dispatch", "memory")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.asarray(a, dtype=np.float64).copy(), np.asarray(b, dtype=np.float64).copy()


def kernel(A, B):
    rows, cols = A.shape[0], B.shape[1]
    C = np.empty((rows, cols), dtype=A.dtype)
    for i in range(rows):
        for j in range(cols):
            C[i, j] = A[i].dot(B[:, j])
    return C
