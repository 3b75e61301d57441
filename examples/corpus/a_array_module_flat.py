"""Flat row-major storage in array.array('d') with manual i*n+k index arithmetic, how people
write it when told lists of lists are wasteful or when porting C code to pure Python."""

from array import array

TITLE = "array('d') flat storage with index arithmetic"
RUNG = 53
LAYERS = ("interpreter_dispatch", "boxing", "container_access", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    n = a.shape[0]
    return array('d', a.ravel().tolist()), array('d', b.ravel().tolist()), n


def kernel(a, b, n):
    c = array('d', bytes(8 * n * n))
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += a[i * n + k] * b[k * n + j]
            c[i * n + j] = s
    return [c[i * n:(i + 1) * n].tolist() for i in range(n)]
