"""Cache-blocked (tiled) triple loop in pure Python with a block size of 16, transcribed
from a computer-architecture lecture slide on loop tiling."""

TITLE = "blocked triple loop, block 16"
RUNG = 83
LAYERS = ("interpreter_dispatch", "boxing", "container_access", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)

BLOCK = 16


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    c = [[0.0] * n for _ in range(n)]
    for ii in range(0, n, BLOCK):
        i_end = min(ii + BLOCK, n)
        for kk in range(0, n, BLOCK):
            k_end = min(kk + BLOCK, n)
            for jj in range(0, n, BLOCK):
                j_end = min(jj + BLOCK, n)
                for i in range(ii, i_end):
                    for k in range(kk, k_end):
                        aik = a[i][k]
                        for j in range(jj, j_end):
                            c[i][j] += aik * b[k][j]
    return c
