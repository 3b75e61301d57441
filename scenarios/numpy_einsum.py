"""`np.einsum("ij,jk->ik", A, B)` without path optimisation: numpy's own sum-of-products loops.

One library call, but not BLAS: einsum's generic inner loops are vectorised yet not cache
blocked, so this rung shows what a library layer gives without a tuned dense kernel.
"""

import numpy as np

TITLE = "numpy einsum (own loops, no BLAS)"
RUNG = 17
SETS = ('libraries',)
LAYERS = ("library_layers", "simd_compute", "memory")
REMOVES = ("parallel",)
DEFAULT_SIZE = 384
MAX_SIZE = 4096


def kernel(a, b):
    return np.einsum("ij,jk->ik", a, b, optimize=False)
