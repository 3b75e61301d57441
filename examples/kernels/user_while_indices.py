"""A user's loop written with `while` and explicit int indices, `+=` on the indices.

The same multiply-adds as `python_naive`, but every index is an int the loop increments
itself (`k += 1` creates an int above the small-int cache once k ≥ 256) and compares
(`k < p`), where `for … in range` does both in C.
"""

TITLE = "Your loop: while with explicit indices"
RUNG = 1
LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "scalar_compute",
    "memory",
)
DEFAULT_SIZE = 96
MAX_SIZE = 512
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n, p, m = len(a), len(b), len(b[0])
    c = [[0.0] * m for _ in range(n)]
    i = 0
    while i < n:
        row = a[i]
        j = 0
        while j < m:
            s = 0.0
            k = 0
            while k < p:
                s += row[k] * b[k][j]
                k += 1
            c[i][j] = s
            j += 1
        i += 1
    return c
