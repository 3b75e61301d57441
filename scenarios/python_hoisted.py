"""ikj loop order with the row lookups and the scalar a[i][k] hoisted into locals.

The inner loop walks one row of B and one row of C with a single subscript each and reuses the
scalar `aik`, so it executes fewer bytecodes and fewer nested subscripts per multiply-add than
the naive loop.  Every product and sum is still a freshly boxed float.
"""

TITLE = "Pure Python, ikj with hoisted rows"
RUNG = 2
SETS = ('python',)
LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "scalar_compute",
)
REMOVES = ("memory",)
DEFAULT_SIZE = 128
MAX_SIZE = 512


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    m = len(b[0])
    c = [[0.0] * m for _ in range(n)]
    for i in range(n):
        a_row = a[i]
        c_row = c[i]
        for k, aik in enumerate(a_row):
            b_row = b[k]
            for j in range(m):
                c_row[j] += aik * b_row[j]
    return c
