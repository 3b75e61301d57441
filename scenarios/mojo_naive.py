"""The ijk triple loop a Python programmer writes first in Mojo: the same three loops as
``python_naive``, over raw pointers to the rows of A, B and C, compiled ahead of time by
``mojo build`` (its defaults: optimisation level 3, the host CPU's instructions) and called
from Python through cffi, as a C rung is.  Mojo's ``Float64`` is a machine double, so boxing,
dispatch and the list layers are gone; what is left is C's ijk loop: the inner loop walks B by
column and adds into one accumulator, so it is latency- and cache-bound, and strict floating
point (no reassociation) keeps it scalar.

Optional: skipped unless Mojo is installed (``make mojo``, Mojo 1.2.0, about 770 MB).
"""

TITLE = "Mojo, ijk triple loop (mojo build)"
RUNG = 9
SETS = ('compilers',)
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []  # mojo build's own defaults: -O3, the host CPU (as -march=native)
SOURCE = r"""
comptime Real = Scalar[real]


@export
def matmul(
    a: UnsafePointer[Real, MutAnyOrigin],
    b: UnsafePointer[Real, MutAnyOrigin],
    c: UnsafePointer[Real, MutAnyOrigin],
    n: Int32,
) abi("C"):
    var size = Int(n)
    for i in range(size):
        for j in range(size):
            var s: Real = 0
            for k in range(size):
                s += a[i * size + k] * b[k * size + j]
            c[i * size + j] = s
"""
