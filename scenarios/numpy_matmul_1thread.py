"""`A @ B` through numpy into the BLAS gemm, with the BLAS thread pool limited to one thread.

Cache blocking, register tiling and hand-written SIMD kernels: the dense kernel on one core.
The thread limit is set with threadpoolctl in `setup`, before anything is timed.
"""

from threadpoolctl import threadpool_limits

TITLE = "numpy A @ B, BLAS on 1 thread"
RUNG = 19
SETS = ('default', 'libraries', 'c', 'cpp')
LAYERS = ("dense_kernel",)
REMOVES = ("memory", "simd_compute", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 16384
SHAPES = True  # any A (m×k)·B (k×n)

_limits = []


def setup(a, b):
    # Kept alive for the worker's lifetime: the limit applies to every timed call.
    _limits.append(threadpool_limits(limits=1, user_api="blas"))
    return a.copy(), b.copy()


def kernel(a, b):
    return a @ b
