"""A first C++ program's matrix product: matrices as ``std::vector<std::vector<double>>``, the
ijk triple loop, ``-O2``. Every ``B[k][j]`` first loads row k's own buffer pointer (a
container of containers: rows are separate heap blocks), then walks B by column, so the loop
is latency- and cache-bound like C's ijk and cannot be vectorised. The kernel copies A and B
into its vectors and C back out (n² work, against n³ multiply-adds), as a program holding
its matrices in vectors would already have them.
"""

TITLE = "C++, vector<vector<double>> ijk, -O2"
RUNG = 9
SETS = ('cpp',)
LAYERS = ("scalar_compute", "container_access", "memory")
DEFAULT_SIZE = 384
MAX_SIZE = 2048
LANGUAGE = "C++"
FLAGS = ["-O2"]
SOURCE = r"""
#include <vector>

using Matrix = std::vector<std::vector<real_t>>;

static Matrix from_flat(const real_t *m, int n) {
    Matrix out(n, std::vector<real_t>(n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) out[i][j] = m[i * n + j];
    return out;
}

static Matrix multiply(const Matrix &a, const Matrix &b) {
    const int n = static_cast<int>(a.size());
    Matrix c(n, std::vector<real_t>(n, 0));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            real_t s = 0;
            for (int k = 0; k < n; k++) s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    return c;
}

extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    const Matrix product = multiply(from_flat(a, n), from_flat(b, n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) c[i * n + j] = product[i][j];
}
"""
