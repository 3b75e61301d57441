"""The textbook ijk triple loop over lists of lists of Python floats.

Every multiply-add executes about a dozen bytecodes, looks up a[i] and b[k] again, boxes the
product and the running sum as new float objects, and dispatches `*` and `+` on the operands'
types.  This is the top of the ladder: every layer of interpreter overhead is present.
"""

TITLE = "Pure Python, ijk triple loop"
RUNG = 1
SETS = ('default', 'python', 'compilers', 'libraries', 'c', 'cpp')
LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "scalar_compute",
    "memory",
)
DEFAULT_SIZE = 128
MAX_SIZE = 512


def setup(a, b):
    return a.tolist(), b.tolist()


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
