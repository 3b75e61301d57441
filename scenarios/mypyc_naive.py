"""python_naive's ijk loop with type annotations (``list[list[float]]``, a ``float``
accumulator), compiled by mypyc.

mypyc trusts the annotations: the bytecode dispatch and the number protocol are gone, the
running sum lives in a C double (no float is allocated per multiply-add), and ``*`` and ``+``
are one machine instruction each.  The matrices are still lists of boxed floats: every
element read is a checked list subscript, a pointer chase to a float object, a type check to
unbox it and a reference count up and down.
"""

TITLE = "mypyc, python_naive's loop with float annotations"
RUNG = 5
SETS = ('compilers',)
LAYERS = (
    "container_access",
    "scalar_compute",
    "memory",
)
REMOVES = ("boxing", "dynamic_dispatch")
DEFAULT_SIZE = 128
MAX_SIZE = 512
REQUIRES = ("mypyc",)  # ships with mypy (pip install mypy)
COMPILER = "mypyc"
SOURCE = r"""
def kernel(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    n = len(a)
    p = len(b)
    m = len(b[0])
    c: list[list[float]] = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            s: float = 0.0
            for k in range(p):
                s += a[i][k] * b[k][j]
            c[i][j] = s
    return c
"""
"""The module mypyc type-checks and compiles (a ``.py``): python_naive's ``kernel`` with
annotations."""


def setup(a, b):  # the compiled kernel's arguments, as python_naive's
    return a.tolist(), b.tolist()
