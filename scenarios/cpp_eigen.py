"""What a C++ programmer reaches for: Eigen's ``MatrixXd`` product (row-major maps of A, B
and C, ``C.noalias() = A * B``), built as a distribution builds by default: ``-O2`` and no
``-march``, so on x86-64 Eigen's own blocked, packed GEMM kernel (BLIS-like) runs on SSE2's
128-bit vectors whatever the CPU has: a layer nobody sees. One thread (no ``-fopenmp``).
"""

TITLE = "C++, Eigen's product, default flags (-O2: SSE2)"
RUNG = 14
SETS = ('cpp',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 1024
MAX_SIZE = 4096
LANGUAGE = "C++"
HEADERS = {"Eigen/Dense": "libeigen3-dev"}
FLAGS = ["-O2", "-I/usr/include/eigen3", "-DEIGEN_DONT_PARALLELIZE"]
SOURCE = r"""
#include <Eigen/Dense>

using Matrix = Eigen::Matrix<real_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    Eigen::Map<const Matrix> A(a, n, n), B(b, n, n);
    Eigen::Map<Matrix> C(c, n, n);
    C.noalias() = A * B;
}
"""
