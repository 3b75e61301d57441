"""A generator function that yields one result row at a time, calling a small helper dot(u, v)
for each element and consumed with list(...), as in tutorials on generators and lazy evaluation."""

TITLE = "Generator yielding rows with a dot() helper"
RUNG = 45
LAYERS = ("call_overhead", "interpreter_dispatch", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    def dot(u, v):
        total = 0.0
        for x, y in zip(u, v):
            total += x * y
        return total

    def rows(m1, m2):
        columns = [[r[j] for r in m2] for j in range(len(m2[0]))]
        for row in m1:
            yield [dot(row, col) for col in columns]

    return list(rows(a, b))
