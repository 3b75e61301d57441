"""The C++ programmer's next step: one flat ``std::vector<double>`` per matrix behind an index
helper (``m(i, j)``), the same ijk loop, now ``-O3 -march=native``. Flat storage removes the
row pointer each access loaded; the native flags allow this CPU's widest vectors, but the
inner loop still walks B by column (stride n), which the compiler does not vectorise: flags
alone do not change the loop's order.
"""

TITLE = "C++, flat vector + index helper, ijk, -O3 -march=native"
RUNG = 10
SETS = ('cpp',)
LAYERS = ("scalar_compute", "memory")
REMOVES = ("container_access",)
DEFAULT_SIZE = 384
MAX_SIZE = 4096
LANGUAGE = "C++"
FLAGS = ["-O3", "-march=native"]
SOURCE = r"""
#include <cstddef>
#include <vector>

class Matrix {
  public:
    Matrix(int n, const real_t *values) : n_(n), data_(values, values + n * n) {}
    explicit Matrix(int n) : n_(n), data_(static_cast<std::size_t>(n) * n, 0) {}
    real_t &operator()(int i, int j) { return data_[static_cast<std::size_t>(i) * n_ + j]; }
    real_t operator()(int i, int j) const { return data_[static_cast<std::size_t>(i) * n_ + j]; }
    int size() const { return n_; }
    const real_t *data() const { return data_.data(); }

  private:
    int n_;
    std::vector<real_t> data_;
};

static Matrix multiply(const Matrix &a, const Matrix &b) {
    const int n = a.size();
    Matrix c(n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            real_t s = 0;
            for (int k = 0; k < n; k++) s += a(i, k) * b(k, j);
            c(i, j) = s;
        }
    return c;
}

extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    const Matrix product = multiply(Matrix(n, a), Matrix(n, b));
    const real_t *values = product.data();
    for (int i = 0; i < n * n; i++) c[i] = values[i];
}
"""
