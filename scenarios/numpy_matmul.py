"""`A @ B` through numpy into the BLAS gemm on all BLAS threads: the dense kernel.

This is the reference every other rung is compared with ("× slower than the dense kernel").
The thread count is whatever the BLAS library chose (recorded in the summary).
"""

TITLE = "numpy A @ B, all BLAS threads (dense kernel)"
RUNG = 21
SETS = ('default', 'python', 'compilers', 'libraries', 'c', 'cpp')
LAYERS = ("dense_kernel", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 16384
SHAPES = True  # any A (m×k)·B (k×n)
DENSE_KERNEL = True


def kernel(a, b):
    return a @ b
