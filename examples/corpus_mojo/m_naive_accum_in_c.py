"""The plain ijk triple loop written the way many newcomers write it: C's element is set to
zero first and then every product a[i, k] * b[k, j] is added straight into c[i, j] in memory,
instead of into a local accumulator.  The inner loop walks B down a column (stride n) and
reads and writes the same element of C on every step.  One thread, scalar code, compiled by
``mojo build`` with its defaults.
"""

TITLE = "Mojo, ijk, accumulating in C itself"
RUNG = 9
SETS = ('mojo_blind',)
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []
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
            c[i * size + j] = 0
            for k in range(size):
                c[i * size + j] += a[i * size + k] * b[k * size + j]
"""
