"""The BLAS gemm routine called directly through SciPy (`scipy.linalg.blas.dgemm`/`sgemm`).

No numpy matmul layer: the call goes straight to the Fortran-interface gemm.  C-ordered A and
B are passed as their Fortran-ordered transposes (computing Cᵀ = Bᵀ·Aᵀ), so f2py copies
nothing.  Compare with numpy_matmul to see numpy's own per-call cost.  Needs SciPy.
"""

from scipy.linalg import blas

TITLE = "SciPy BLAS gemm called directly"
RUNG = 18
SETS = ('libraries',)
LAYERS = ("dense_kernel", "parallel")
REMOVES = ("library_layers",)
DEFAULT_SIZE = 1024
MAX_SIZE = 16384
SHAPES = True  # any A (m×k)·B (k×n)
REQUIRES = ("scipy",)


def setup(a, b):
    gemm = blas.dgemm if a.dtype.itemsize == 8 else blas.sgemm
    return gemm, a.T, b.T  # F-contiguous views of the C-contiguous inputs


def kernel(gemm, a_t, b_t):
    return gemm(1.0, b_t, a_t).T  # (Bᵀ·Aᵀ)ᵀ = A·B, C-contiguous
