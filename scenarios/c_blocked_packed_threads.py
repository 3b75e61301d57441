"""`c_blocked_packed` on every CPU: OpenMP threads share the packing of each B panel and the
micro-kernel calls of each A block (BLIS's JR loop), as a threaded BLAS does.  Uses
OMP_NUM_THREADS or all CPUs.
"""

from overhead_tui.api import (
    PACKED_GEMM_SOURCE,
    cpu_flags,
    gemm_blocking,
    read_cache_sizes,
)

TITLE = "C, packed panels + register micro-kernel (BLIS-style), OpenMP threads"
RUNG = 17
SETS = ('c',)
LAYERS = ("simd_compute", "memory", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
BLOCKING = gemm_blocking(read_cache_sizes(), cpu_flags())
FLAGS = ["-O3", "-march=native", "-fopenmp", *BLOCKING.defines()]
LINK_FLAGS = ["-fopenmp"]
# one BLAS thread: numpy's OpenBLAS threads would spin beside the OpenMP team
BLAS_THREADS = 1
SOURCE = PACKED_GEMM_SOURCE
