"""`c_blocked_packed` held to 256-bit vectors (AVX2's 6 × 8 register block, BLIS's haswell
shape) on a CPU that has AVX-512: the same packing and cache blocks at `c_tiled_simd`'s
width, so the ladder credits packing and blocking apart from the wider micro-kernel.
Skipped where the CPU's widest vectors are 256 bits or fewer (`c_blocked_packed` is then
this rung).
"""

from overhead_tui.api import (
    PACKED_GEMM_SOURCE,
    Unavailable,
    cpu_flags,
    gemm_blocking,
    prepare,
    read_cache_sizes,
)

NAME = "c_blocked_packed_256"
TITLE = "C, packed panels + 256-bit register micro-kernel (BLIS-style), 1 thread"
RUNG = 15
SETS = ('c',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
WIDER = {"avx512f"}
"""The flags of a wider ISA than AVX2, left out of the blocking and the build."""
BLOCKING = gemm_blocking(read_cache_sizes(), cpu_flags() - WIDER)
FLAGS = ["-O3", "-march=native", "-mno-avx512f", *BLOCKING.defines()]
LINK_FLAGS = []
SOURCE = PACKED_GEMM_SOURCE


def setup(a, b):
    if not cpu_flags() & WIDER or BLOCKING.vector_bytes != 32:
        raise Unavailable(
            "this CPU's widest vectors are 256 bits or fewer: c_blocked_packed is this rung here"
        )
    return prepare(NAME, SOURCE, FLAGS, LINK_FLAGS, a, b)
