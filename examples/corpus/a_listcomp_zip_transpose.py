"""The 'Pythonic one-liner' answer: nested list comprehensions with zip(*b) to transpose and
sum(x*y for x, y in zip(row, col)), popular on Stack Overflow and in blog posts."""

TITLE = "List comprehension with zip(*b)"
RUNG = 48
LAYERS = ("interpreter_dispatch", "call_overhead", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    b_cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in b_cols] for row in a]
