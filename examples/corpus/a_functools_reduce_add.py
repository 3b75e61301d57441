"""Each entry computed with functools.reduce(operator.add, map(operator.mul, row, col)),
a style from functional-programming tutorials and 'no explicit loops' exercises."""

from functools import reduce
import operator

TITLE = "functools.reduce with operator.add"
RUNG = 66
LAYERS = ("call_overhead", "interpreter_dispatch", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def dot(row, col):
    return reduce(operator.add, map(operator.mul, row, col), 0.0)


def kernel(a, b):
    cols = list(zip(*b))
    return [list(map(lambda col, row=row: dot(row, col), cols)) for row in a]
