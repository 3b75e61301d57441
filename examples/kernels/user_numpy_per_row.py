"""A user's loop calling numpy once per row of C: `(a[i][:, None] * b).sum(axis=0)`.

Each row builds an n × n temporary (column of A times all of B) and reduces it: n² elements
written and read again per row, where BLAS would keep them in registers.
"""

import numpy as np

TITLE = "Your loop: numpy per row, broadcast and sum"
RUNG = 6
LAYERS = ("interpreter_dispatch", "library_layers", "simd_compute", "memory")
REMOVES = ("boxing", "dynamic_dispatch", "container_access", "scalar_compute")
DEFAULT_SIZE = 256
MAX_SIZE = 2048


def kernel(a, b):
    c = np.empty((a.shape[0], b.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        c[i] = (a[i][:, None] * b).sum(axis=0)
    return c
