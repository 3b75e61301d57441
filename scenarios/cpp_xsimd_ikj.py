"""C++ with an explicit SIMD library (xsimd): the ikj loop of ``c_ikj_O3_native`` written with
``xsimd::batch`` loads, ``xsimd::fma`` and stores, ``-O3 -march=native``. The library picks
the widest vectors the compile flags allow (AVX2's 256 bits with FMA here, AVX-512's 512
where the CPU has it); beside the auto-vectorised C loop and the hand intrinsics of
``c_tiled_simd`` it answers "a SIMD library, or the compiler?". The tail of a row shorter
than one batch runs scalar.
"""

TITLE = "C++, xsimd batches, ikj, -O3 -march=native"
RUNG = 11
SETS = ('cpp',)
LAYERS = ("simd_compute", "memory")
REMOVES = ("scalar_compute",)
DEFAULT_SIZE = 512
MAX_SIZE = 4096
LANGUAGE = "C++"
HEADERS = {"xsimd/xsimd.hpp": "libxsimd-dev"}
FLAGS = ["-O3", "-march=native"]
SOURCE = r"""
#include <xsimd/xsimd.hpp>

extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    using batch = xsimd::batch<real_t>;
    constexpr int width = static_cast<int>(batch::size);
    for (int i = 0; i < n * n; i++) c[i] = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            const batch aik(a[i * n + k]);
            const real_t *brow = b + k * n;
            real_t *crow = c + i * n;
            int j = 0;
            for (; j + width <= n; j += width) {
                const batch sum = xsimd::fma(aik, batch::load_unaligned(brow + j),
                                             batch::load_unaligned(crow + j));
                sum.store_unaligned(crow + j);
            }
            for (; j < n; j++) crow[j] += a[i * n + k] * brow[j];
        }
}
"""
