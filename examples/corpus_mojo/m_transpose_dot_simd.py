"""The dot-product form: B is first copied, transposed, into a scratch buffer allocated on
the heap, so that column j of B becomes a contiguous row.  Each c[i, j] is then the dot
product of row i of A with row j of the transpose, computed with SIMD loads of the CPU's
width into one vector accumulator (multiply-add), reduced to a scalar with ``reduce_add``,
plus a scalar loop for the last n mod width elements.  The buffer is freed at the end.  One
thread, ``mojo build`` defaults.
"""

TITLE = "Mojo, transpose B then SIMD dot products (reduce_add)"
RUNG = 12
SETS = ('mojo_blind',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 512
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []
SOURCE = r"""
from std.memory import alloc
from std.sys import simd_width_of

comptime Real = Scalar[real]
comptime width = simd_width_of[real]()


@export
def matmul(
    a: UnsafePointer[Real, MutAnyOrigin],
    b: UnsafePointer[Real, MutAnyOrigin],
    c: UnsafePointer[Real, MutAnyOrigin],
    n: Int32,
) abi("C"):
    var size = Int(n)
    var bt = alloc[Real](size * size)
    for k in range(size):
        for j in range(size):
            bt[j * size + k] = b[k * size + j]

    var vec_end = size - size % width
    for i in range(size):
        var arow = i * size
        for j in range(size):
            var brow = j * size
            var acc = SIMD[real, width](0)
            for k in range(0, vec_end, width):
                var av = a.load[width=width](arow + k)
                var bv = bt.load[width=width](brow + k)
                acc = av.fma(bv, acc)
            var s = acc.reduce_add()
            for k in range(vec_end, size):
                s += a[arow + k] * bt[brow + k]
            c[arow + j] = s

    bt.free()
"""
