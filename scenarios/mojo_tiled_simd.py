"""Mojo's own next steps for the same product, as its authors' matmul walkthrough takes them:
the loops reordered to ikj, the inner loop over ``SIMD[real, width]`` vectors of the CPU's
width (``simd_width_of``: 4 doubles with AVX2, 8 with AVX-512) with a fused multiply-add, and
the j and k loops tiled so a 64 × 64 block of B (32 KiB of doubles) is reused from the L1 and L2
caches by every row of A.  One thread, no packing, no register blocking: what is left to
BLAS is the micro-kernel that keeps C's tile in registers.

Optional: skipped unless Mojo is installed (``make mojo``, Mojo 1.2.0, about 770 MB).
"""

TITLE = "Mojo, ikj, SIMD vectors, 64 × 64 tiles (mojo build)"
RUNG = 13
SETS = ('compilers',)
LAYERS = ("simd_compute", "memory")
REMOVES = ("scalar_compute",)
DEFAULT_SIZE = 512
MAX_SIZE = 4096
LANGUAGE = "Mojo"
FLAGS = []  # mojo build's own defaults: -O3, the host CPU (as -march=native)
SOURCE = r"""
from std.sys import simd_width_of

comptime Real = Scalar[real]
comptime width = simd_width_of[real]()
comptime tile = 64


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
    for j0 in range(0, size, tile):
        var j1 = min(j0 + tile, size)
        for k0 in range(0, size, tile):
            var k1 = min(k0 + tile, size)
            for i in range(size):
                for k in range(k0, k1):
                    var aik = SIMD[real, width](a[i * size + k])
                    var j = j0
                    while j + width <= j1:
                        var row = i * size + j
                        var b_kj = b.load[width=width](k * size + j)
                        c.store(row, b_kj.fma(aik, c.load[width=width](row)))
                        j += width
                    while j < j1:
                        c[i * size + j] += a[i * size + k] * b[k * size + j]
                        j += 1
"""
