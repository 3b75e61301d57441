"""Loop order ikj: the inner loop streams contiguous rows of B and C, which GCC auto-vectorises
with -O3 -march=native (the vectorisation report is kept in the summary). No cache blocking:
C's row is re-read for every k.
"""

TITLE = "C, ikj, -O3 -march=native (auto-vectorised)"
RUNG = 11
SETS = ('default', 'c', 'cpp')
LAYERS = ("simd_compute", "memory")
REMOVES = ("scalar_compute",)
DEFAULT_SIZE = 512
MAX_SIZE = 4096
FLAGS = ["-O3", "-march=native"]
SOURCE = r"""
void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n * n; i++) c[i] = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            const real_t aik = a[i * n + k];
            const real_t *restrict brow = b + k * n;
            real_t *restrict crow = c + i * n;
            for (int j = 0; j < n; j++)
                crow[j] += aik * brow[j];
        }
}
"""
