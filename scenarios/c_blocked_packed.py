"""The way BLAS is written: A and B packed into contiguous panels, three cache blocks (MC, KC,
NC) sized from this CPU's caches, and a micro-kernel that keeps an MR × NR block of C in
vector registers at the CPU's widest FMA (GotoBLAS/BLIS, one thread).

This is the step from `c_tiled_simd` to the dense kernel: packing makes every load of the
micro-kernel unit-stride and conflict-free, the blocks keep A's micro-panel in L1, A's block
in L2 and B's panel in L3 (`kit.packed_gemm` says why not B's micro-panel in L1), and the
register block does MR × NR / W FMAs per MR + NR / W loads. Packing runs inside the timed call.
"""

from overhead_tui.api import (
    PACKED_GEMM_SOURCE,
    cpu_flags,
    gemm_blocking,
    read_cache_sizes,
)

TITLE = "C, packed panels + register micro-kernel (BLIS-style), 1 thread"
RUNG = 16
SETS = ('c',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
BLOCKING = gemm_blocking(read_cache_sizes(), cpu_flags())
FLAGS = ["-O3", "-march=native", *BLOCKING.defines()]
SOURCE = PACKED_GEMM_SOURCE
