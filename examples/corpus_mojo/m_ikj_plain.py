"""The loop order a programmer picks after reading that ijk is cache-unfriendly: i, then k,
then j.  Each row of C is zeroed, then for every k the scalar a[i, k] is hoisted into a local
and the row k of B, scaled by it, is added to the row i of C, element by element.  The inner
loop walks B and C with stride 1; no explicit SIMD is written, vectorising it is left to the
compiler.  One thread, ``mojo build`` defaults.
"""

TITLE = "Mojo, ikj, scalar loop (compiler left to vectorise)"
RUNG = 9
SETS = ('mojo_blind',)
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 512
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
        var row = i * size
        for j in range(size):
            c[row + j] = 0
        for k in range(size):
            var aik = a[row + k]
            var brow = k * size
            for j in range(size):
                c[row + j] += aik * b[brow + j]
"""
