"""Eigen's same product built for this CPU (``-O3 -march=native``): its GEMM kernel then uses
the widest vectors and FMA the CPU has. Beside ``cpp_eigen`` it measures what the
distribution's default flags cost, with the source unchanged. One thread.
"""

TITLE = "C++, Eigen's product, -O3 -march=native"
RUNG = 16
SETS = ('cpp',)
LAYERS = ("simd_compute", "memory")
DEFAULT_SIZE = 1024
MAX_SIZE = 4096
LANGUAGE = "C++"
HEADERS = {"Eigen/Dense": "libeigen3-dev"}
FLAGS = ["-O3", "-march=native", "-I/usr/include/eigen3", "-DEIGEN_DONT_PARALLELIZE"]
SOURCE = r"""
#include <Eigen/Dense>

using Matrix = Eigen::Matrix<real_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    Eigen::Map<const Matrix> A(a, n, n), B(b, n, n);
    Eigen::Map<Matrix> C(c, n, n);
    C.noalias() = A * B;
}
"""
