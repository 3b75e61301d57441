"""python_naive's ijk loop over lists of floats, compiled by Cython unchanged (no type
declarations).

The same source, but as C calls into the interpreter's C API instead of bytecode: the eval
loop's dispatch is gone.  Everything else stays: each multiply-add still fetches a[i] and b[k]
as objects, multiplies and adds through the number protocol on boxed floats, and allocates a
new float for the product and the sum.  Cython turns only the loop counters (``range`` over a
``len``) into C integers.
"""

TITLE = "Cython, python_naive's loop unchanged"
RUNG = 5
SETS = ('default', 'compilers')
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
REQUIRES = ("Cython",)
COMPILER = "cython"
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
"""The module Cython compiles (a ``.pyx``): python_naive's ``kernel``, character for
character."""


def setup(a, b):  # the compiled kernel's arguments, as python_naive's
    return a.tolist(), b.tolist()
