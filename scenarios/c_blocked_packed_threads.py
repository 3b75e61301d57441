"""`c_blocked_packed` on every CPU: OpenMP threads share the packing of each B panel and the
micro-kernel calls of each A block (BLIS's JR loop), as a threaded BLAS does.  Uses
OMP_NUM_THREADS or all CPUs.
"""

from threadpoolctl import threadpool_limits

from overhead_tui.api import (
    PACKED_GEMM_SOURCE,
    cpu_flags,
    gemm_blocking,
    matmul,
    prepare,
    read_cache_sizes,
)

NAME = "c_blocked_packed_threads"
TITLE = "C, packed panels + register micro-kernel (BLIS-style), OpenMP threads"
RUNG = 17
LAYERS = ("simd_compute", "memory", "parallel")
REMOVES = ()
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
DTYPES = ("float64", "float32")
BLOCKING = gemm_blocking(read_cache_sizes(), cpu_flags())
FLAGS = ["-O3", "-march=native", "-fopenmp", *BLOCKING.defines()]
LINK_FLAGS = ["-fopenmp"]
SOURCE = PACKED_GEMM_SOURCE


BUILD_INFO: dict = {}
_limits = []


def setup(a, b):
    # OpenBLAS threads woken by numpy in this process spin after each call and would compete
    # with the OpenMP team on the same cores: one BLAS thread.
    _limits.append(threadpool_limits(limits=1, user_api="blas"))
    return prepare(BUILD_INFO, NAME, SOURCE, FLAGS, LINK_FLAGS, a, b)


def kernel(lib, pa, pb, pc, c, n):
    return matmul(lib, pa, pb, pc, c, n)


def to_numpy(c):
    return c
