"""A user's builtin-driven inner loop: `sum(map(operator.mul, row, column))`.

B is transposed once so each column is a list; the inner loop over k runs entirely in C:
`map` calls `operator.mul` on each pair (a boxed float each time) and `sum` adds them up.
No bytecode runs per multiply-add, but every product is still a float object.
"""

import operator

TITLE = "Your loop: sum(map(operator.mul, row, column))"
RUNG = 2
LAYERS = ("boxing", "call_overhead", "scalar_compute", "memory")
REMOVES = ("interpreter_dispatch", "container_access")
DEFAULT_SIZE = 128
MAX_SIZE = 512
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.T.tolist()


def kernel(a, bt):
    return [[sum(map(operator.mul, row, column)) for column in bt] for row in a]
