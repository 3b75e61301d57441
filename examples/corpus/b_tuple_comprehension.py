"""Immutable tuples of tuples as input with the product built by tuple() over generator
expressions, a style favoured in functional-programming flavoured blog posts and notes."""

TITLE = "tuples of tuples with tuple comprehensions"
RUNG = 52
LAYERS = ("interpreter_dispatch", "call_overhead", "boxing", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return tuple(tuple(row) for row in a.tolist()), tuple(tuple(row) for row in b.tolist())


def kernel(a, b):
    b_cols = tuple(zip(*b))
    return tuple(
        tuple(sum(x * y for x, y in zip(row, col)) for col in b_cols)
        for row in a
    )
