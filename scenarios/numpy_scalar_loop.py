"""The hoisted ikj loop over numpy arrays, indexed element by element from Python.

Each `c[i, j] += aik * b[k, j]` goes through numpy's tuple-index parsing and creates numpy
scalar objects, which are slower than Python floats: numpy's library layers are paid per
element without any of its vectorisation.
"""

import numpy as np

TITLE = "numpy arrays, element-wise Python loop"
RUNG = 5
SETS = ('python', 'libraries')
LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "library_layers",
    "scalar_compute",
)
DEFAULT_SIZE = 48
MAX_SIZE = 256


def kernel(a, b):
    n, p = a.shape
    m = b.shape[1]
    c = np.zeros((n, m), dtype=a.dtype)
    for i in range(n):
        for k in range(p):
            aik = a[i, k]
            for j in range(m):
                c[i, j] += aik * b[k, j]
    return c
