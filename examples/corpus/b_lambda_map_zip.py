"""Functional one-liner built from nested map/lambda/zip calls, the kind of answer that
shows up on Stack Overflow under "matrix multiplication without numpy in one line"."""

TITLE = "nested map and lambda one-liner"
RUNG = 47
LAYERS = ("call_overhead", "interpreter_dispatch", "boxing", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    cols = list(zip(*b))
    return list(map(lambda row: list(map(lambda col: sum(map(lambda p: p[0] * p[1], zip(row, col))), cols)), a))
