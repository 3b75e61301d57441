"""One Python loop over k, accumulating the outer product of column k of A and row k of B.

Only n numpy calls per matmul remain, each doing n² multiply-adds in compiled code, so the
library layers are amortised; the kernel is now limited by streaming the n×n accumulator
through memory once per k (low arithmetic intensity), not by the interpreter.
"""

import numpy as np

TITLE = "numpy, one loop of outer-product updates"
RUNG = 7
SETS = ('libraries',)
LAYERS = ("library_layers", "simd_compute", "memory")
REMOVES = ("interpreter_dispatch", "call_overhead")
DEFAULT_SIZE = 384
MAX_SIZE = 4096


def kernel(a, b):
    n, p = a.shape
    c = np.zeros((n, b.shape[1]), dtype=a.dtype)
    tmp = np.empty_like(c)
    for k in range(p):
        np.multiply.outer(a[:, k], b[k], out=tmp)
        c += tmp
    return c
