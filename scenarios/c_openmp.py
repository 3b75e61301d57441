"""The tiled SIMD kernel with the column panels of C shared among OpenMP threads (each thread owns
whole panels, so no synchronisation inside), as in the paper's parallel-loops step. Uses
OMP_NUM_THREADS or all CPUs.
"""

from overhead_tui.api import TILED_SIMD_SOURCE

TITLE = "C, tiled SIMD, OpenMP threads over column panels"
RUNG = 16
SETS = ('c',)
LAYERS = ("simd_compute", "memory", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
FLAGS = ["-O3", "-march=native", "-fopenmp"]
LINK_FLAGS = ["-fopenmp"]
# one BLAS thread: numpy's OpenBLAS threads would spin beside the OpenMP team
BLAS_THREADS = 1
SOURCE = TILED_SIMD_SOURCE
