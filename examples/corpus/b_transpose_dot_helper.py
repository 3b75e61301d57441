"""Transpose B first with a nested list comprehension, then take row-by-row dot products
through a small helper function, the textbook "make the access pattern contiguous" version."""

TITLE = "transposed B with dot helper"
RUNG = 64
LAYERS = ("call_overhead", "interpreter_dispatch", "boxing", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def dot(u, v):
    s = 0.0
    for i in range(len(u)):
        s += u[i] * v[i]
    return s


def kernel(a, b):
    bt = [[b[k][j] for k in range(len(b))] for j in range(len(b[0]))]
    return [[dot(row, col) for col in bt] for row in a]
