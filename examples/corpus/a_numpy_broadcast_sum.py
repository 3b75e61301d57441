"""Broadcasting trick from numpy tutorials: build the n x n x n outer product with
A[:, :, None] * B[None, :, :] and sum over the middle axis, no matmul call."""

import numpy as np

TITLE = "Numpy broadcasting then sum(axis=1)"
RUNG = 89
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def kernel(A, B):
    return (A[:, :, np.newaxis] * B[np.newaxis, :, :]).sum(axis=1)
