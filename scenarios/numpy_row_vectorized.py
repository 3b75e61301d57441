"""Python loops over (i, k); the inner loop over j is one numpy operation on a row.

`c[i] += a[i, k] * b[k]` runs the j loop in compiled, SIMD code, so per multiply-add the
interpreter and boxing costs vanish; what remains is a fixed cost per numpy call (argument
parsing, ufunc dispatch, temporary arrays) paid n² times.
"""

import numpy as np

TITLE = "numpy, Python (i, k) loops, vectorised rows"
RUNG = 6
SETS = ('default', 'libraries')
LAYERS = ("interpreter_dispatch", "call_overhead", "library_layers", "simd_compute", "memory")
REMOVES = ("boxing", "dynamic_dispatch", "container_access", "scalar_compute")
DEFAULT_SIZE = 192
MAX_SIZE = 2048


def kernel(a, b):
    n, p = a.shape
    c = np.zeros((n, b.shape[1]), dtype=a.dtype)
    for i in range(n):
        c_row = c[i]
        for k in range(p):
            c_row += a[i, k] * b[k]
    return c
