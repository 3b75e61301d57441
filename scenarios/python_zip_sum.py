"""Dot products with `sum(a * b for a, b in zip(row, col))` over a pre-transposed B.

The loop over k moves into the `zip` and `sum` builtins and a generator, so there is no
explicit index arithmetic or subscripting per multiply-add; the products are still boxed floats
produced by bytecode in the generator frame.
"""

TITLE = "Pure Python, sum(zip) over transposed B"
RUNG = 3
SETS = ('python',)
LAYERS = ("interpreter_dispatch", "boxing", "dynamic_dispatch", "call_overhead", "scalar_compute")
REMOVES = ("container_access",)
DEFAULT_SIZE = 128
MAX_SIZE = 512


def setup(a, b):
    # The transpose is part of preparing the representation, not of the timed kernel.
    return a.tolist(), b.T.tolist()


def kernel(a, b_t):
    return [[sum(x * y for x, y in zip(row, col)) for col in b_t] for row in a]
