"""Functional-style version using itertools.product to walk (i, j) index pairs and
starmap(operator.mul, zip(...)) for the dot product, the kind of thing people write after
discovering the itertools docs."""

import itertools
import operator

TITLE = "itertools.product + starmap(operator.mul)"
RUNG = 63
LAYERS = ("interpreter_dispatch", "call_overhead", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n, m = len(a), len(b[0])
    cols = [list(c) for c in zip(*b)]
    c = [[0.0] * m for _ in range(n)]
    for i, j in itertools.product(range(n), range(m)):
        c[i][j] = sum(itertools.starmap(operator.mul, zip(a[i], cols[j])))
    return c
