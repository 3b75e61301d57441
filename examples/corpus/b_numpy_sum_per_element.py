"""NumPy arrays indexed element by element, each entry np.sum(A[i, :] * B[:, j]), as people
write when translating the mathematical definition straight into array slicing."""

import numpy as np

TITLE = "numpy np.sum of slices per element"
RUNG = 67
LAYERS = ("library_layers", "call_overhead", "memory", "simd_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)


def kernel(A, B):
    n, p = A.shape
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            C[i, j] = np.sum(A[i, :] * B[:, j])
    return C
