"""Plain floats accumulated into a collections.defaultdict(float) keyed by (i, j), the
sparse-matrix-style dictionary approach seen in blog posts and algorithms homework."""

from collections import defaultdict

TITLE = "defaultdict accumulator keyed by (i, j)"
RUNG = 88
LAYERS = ("container_access", "interpreter_dispatch", "boxing", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    m = len(b[0])
    acc = defaultdict(float)
    for i, row in enumerate(a):
        for k, a_ik in enumerate(row):
            for j, b_kj in enumerate(b[k]):
                acc[(i, j)] += a_ik * b_kj
    return [[acc[(i, j)] for j in range(m)] for i in range(n)]
