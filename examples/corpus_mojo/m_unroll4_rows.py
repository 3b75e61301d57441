"""The ikj loop unrolled over four rows of A at a time: for each k, one SIMD vector of row k
of B is loaded and used for four fused multiply-adds, into rows i, i+1, i+2 and i+3 of C,
with the four scalars a[i..i+3, k] splatted to vectors outside the j loop.  So each load of
B is reused four times.  C is zeroed first; leftover columns (n mod width) are done with
scalar code and leftover rows (n mod 4) with a one-row version of the same loop.  No cache
tiling.  One thread, ``mojo build`` defaults.
"""

TITLE = "Mojo, ikj SIMD, 4 rows of A per pass"
RUNG = 12
SETS = ('mojo_blind',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 512
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []
SOURCE = r"""
from std.sys import simd_width_of

comptime Real = Scalar[real]
comptime width = simd_width_of[real]()
comptime Vec = SIMD[real, width]


@export
def matmul(
    a: UnsafePointer[Real, MutAnyOrigin],
    b: UnsafePointer[Real, MutAnyOrigin],
    c: UnsafePointer[Real, MutAnyOrigin],
    n: Int32,
) abi("C"):
    var size = Int(n)
    for x in range(size * size):
        c[x] = 0

    var vec_end = size - size % width
    var i = 0
    while i + 4 <= size:
        var r0 = i * size
        var r1 = r0 + size
        var r2 = r1 + size
        var r3 = r2 + size
        for k in range(size):
            var a0 = Vec(a[r0 + k])
            var a1 = Vec(a[r1 + k])
            var a2 = Vec(a[r2 + k])
            var a3 = Vec(a[r3 + k])
            var bk = k * size
            for j in range(0, vec_end, width):
                var bv = b.load[width=width](bk + j)
                c.store(r0 + j, bv.fma(a0, c.load[width=width](r0 + j)))
                c.store(r1 + j, bv.fma(a1, c.load[width=width](r1 + j)))
                c.store(r2 + j, bv.fma(a2, c.load[width=width](r2 + j)))
                c.store(r3 + j, bv.fma(a3, c.load[width=width](r3 + j)))
            for j in range(vec_end, size):
                var bkj = b[bk + j]
                c[r0 + j] += a[r0 + k] * bkj
                c[r1 + j] += a[r1 + k] * bkj
                c[r2 + j] += a[r2 + k] * bkj
                c[r3 + j] += a[r3 + k] * bkj
        i += 4

    while i < size:
        var r = i * size
        for k in range(size):
            var av = Vec(a[r + k])
            var bk = k * size
            for j in range(0, vec_end, width):
                c.store(r + j, b.load[width=width](bk + j).fma(av, c.load[width=width](r + j)))
            for j in range(vec_end, size):
                c[r + j] += a[r + k] * b[bk + j]
        i += 1
"""
