"""python_naive's ijk loop over lists of floats, compiled by Nuitka unchanged.

Nuitka translates the whole module, as written, into C that calls the interpreter's C API:
the eval loop's dispatch is gone, as with ``cython_untyped``.  What it keeps is what the
source leaves dynamic: every element read is a list subscript returning an object, every
``*`` and ``+=`` a type check and a new float (Nuitka's helpers take a float-float fast path
before the generic number protocol), every loop trip an iterator step.  The question it
answers: how much of pure Python's time is the bytecode dispatch a compiler of unchanged
Python removes, and how much the objects it cannot.
"""

TITLE = "Nuitka, python_naive's loop unchanged"
RUNG = 5
SETS = ('compilers',)  # a cold build takes 20-25 s (Nuitka compiles its C helpers each time)
LAYERS = (
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "scalar_compute",
    "memory",
)
REMOVES = ("interpreter_dispatch",)
DEFAULT_SIZE = 128
MAX_SIZE = 512
REQUIRES = ("nuitka",)
COMPILER = "nuitka"
SOURCE = r"""
def kernel(a, b):
    n = len(a)
    p = len(b)
    m = len(b[0])
    c = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            s = 0.0
            for k in range(p):
                s += a[i][k] * b[k][j]
            c[i][j] = s
    return c
"""
"""The module Nuitka compiles (a ``.py``): python_naive's ``kernel``, character for character."""


def setup(a, b):  # the compiled kernel's arguments, as python_naive's
    return a.tolist(), b.tolist()
