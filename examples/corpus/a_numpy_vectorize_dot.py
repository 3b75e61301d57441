"""np.vectorize with a gufunc signature wrapped around a row-by-column dot function, which
people reach for believing it 'vectorizes' their Python function (seen in notebooks and SO)."""

import numpy as np

TITLE = "np.vectorize over a row-column dot"
RUNG = 60
LAYERS = ("call_overhead", "library_layers", "interpreter_dispatch", "simd_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def row_col_dot(row, col):
    return np.sum(row * col)


vdot = np.vectorize(row_col_dot, signature="(n),(n)->()")


def kernel(A, B):
    # A[:, None, :] is (n, 1, n); B.T[None, :, :] is (1, n, n) -> result (n, n)
    return vdot(A[:, np.newaxis, :], B.T[np.newaxis, :, :])
