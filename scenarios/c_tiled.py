"""Cache blocking: the ikj loop over 32×32 tiles, so a tile of A, B and C (3 × 8 KiB in float64)
stays in a 32 KiB L1 data cache while it is reused (the paper's divide-and-conquer step does
the same recursively).
"""

TITLE = "C, cache-blocked 32×32 tiles, -O3 -march=native"
RUNG = 13
SETS = ('c',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 512
MAX_SIZE = 4096
FLAGS = ["-O3", "-march=native"]
SOURCE = r"""
#define T 32  /* 3 tiles of 32 x 32 doubles = 24 KiB: fit a 32 KiB L1 data cache */

static int min_int(int x, int y) { return x < y ? x : y; }

void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n * n; i++) c[i] = 0;
    for (int ii = 0; ii < n; ii += T)
        for (int kk = 0; kk < n; kk += T)
            for (int jj = 0; jj < n; jj += T) {
                const int ie = min_int(ii + T, n), ke = min_int(kk + T, n), je = min_int(jj + T, n);
                for (int i = ii; i < ie; i++)
                    for (int k = kk; k < ke; k++) {
                        const real_t aik = a[i * n + k];
                        const real_t *restrict brow = b + k * n;
                        real_t *restrict crow = c + i * n;
                        for (int j = jj; j < je; j++)
                            crow[j] += aik * brow[j];
                    }
            }
}
"""
