"""Each entry computed with math.fsum over a list comprehension of products, the
"accurate floating-point sum" variant recommended in numerical-methods course notes."""

import math

TITLE = "math.fsum per element"
RUNG = 61
LAYERS = ("scalar_compute", "interpreter_dispatch", "boxing", "container_access")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    p = len(b)
    m = len(b[0])
    return [
        [math.fsum([a[i][k] * b[k][j] for k in range(p)]) for j in range(m)]
        for i in range(n)
    ]
