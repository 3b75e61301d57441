"""The ikj loop with its inner loop handed to the standard library's ``vectorize``: a nested
closure, parameterised on the vector width, loads ``width`` elements of row k of B and of
row i of C, does a fused multiply-add with a[i, k] splatted to a vector, and stores the
result back into C.  ``vectorize`` steps the closure by ``simd_width_of[real]()`` and runs
the remainder one element at a time.  No tiling: the whole of B is streamed once per row of
A.  One thread, ``mojo build`` defaults.
"""

TITLE = "Mojo, ikj with std vectorize (simd_width_of)"
RUNG = 12
SETS = ('mojo_blind',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 512
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []
SOURCE = r"""
from std.algorithm import vectorize
from std.sys import simd_width_of

comptime Real = Scalar[real]
comptime nelts = simd_width_of[real]()


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

        def zero[width: Int](j: Int) {imm}:
            c.store[width=width](row + j, SIMD[real, width](0))

        vectorize[nelts](size, zero)

        for k in range(size):
            var aik = a[row + k]
            var brow = k * size

            def axpy[width: Int](j: Int) {imm}:
                var cv = c.load[width=width](row + j)
                var bv = b.load[width=width](brow + j)
                c.store[width=width](row + j, bv.fma(SIMD[real, width](aik), cv))

            vectorize[nelts](size, axpy)
"""
