"""`A @ B` for the dtypes numpy's BLAS does not cover: float16 and int8 go through numpy's own
C loops (``matmul`` for ``half`` and integer types: a scalar triple loop, no blocking, no
SIMD; float16 is converted to float32 and back element by element, so no FP16 instruction
runs — emulated, not native).  int8 products accumulate in int32 (``dtype=np.int32``).  The
library layer without a dense kernel: the same call as the float64 rung, 100-1000 × slower.
"""

import numpy as np

TITLE = "numpy A @ B on its own loops (float16, int8)"
RUNG = 22
SETS = ('libraries',)
LAYERS = ("library_layers", "scalar_compute", "memory")
DEFAULT_SIZE = 256
MAX_SIZE = 4096
DTYPES = ("float16", "int8")


def setup(a, b):
    return a.copy(), b.copy(), np.int32 if a.dtype == np.int8 else None


def kernel(a, b, accumulate):
    return np.matmul(a, b, dtype=accumulate) if accumulate is not None else a @ b
