"""The same ijk loop with -O2: operands live in registers, but the inner loop walks B by column
(stride n), so it is latency- and cache-bound and cannot be vectorised.
"""

TITLE = "C, ijk triple loop, -O2"
RUNG = 9
SETS = ('default', 'c', 'cpp')
LAYERS = ("scalar_compute", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 4096
FLAGS = ["-O2"]
SOURCE = r"""
void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            real_t s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
"""
