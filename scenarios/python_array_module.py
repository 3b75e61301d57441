"""The hoisted ikj loop over flat `array.array` storage (typecode 'd', or 'f' for float32).

The data is dense and unboxed in memory, as in C, but every read `b[j]` creates a new float
object and every write `c[j] = ...` unboxes one again: dense storage alone does not remove
boxing while the loop runs in the interpreter.
"""

from array import array

import numpy as np

TITLE = "array.array storage, hoisted loop"
RUNG = 4
SETS = ('python',)
LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "scalar_compute",
)
DEFAULT_SIZE = 128
MAX_SIZE = 512


def setup(a, b):
    code = "f" if a.dtype == np.float32 else "d"
    n, p = a.shape
    m = b.shape[1]
    return array(code, a.ravel().tolist()), array(code, b.ravel().tolist()), n, p, m


def kernel(a, b, n, p, m):
    c = array(a.typecode, bytes(a.itemsize * n * m))
    for i in range(n):
        a_base = i * p
        c_base = i * m
        for k in range(p):
            aik = a[a_base + k]
            b_base = k * m
            for j in range(m):
                c[c_base + j] += aik * b[b_base + j]
    return c, n, m


def to_numpy(result):
    c, n, m = result
    return np.frombuffer(c, dtype=np.float32 if c.typecode == "f" else np.float64).reshape(n, m)
