"""The widest vector dot-product instructions of AVX-512 for each lower precision, register-
blocked (4 rows of A × 32 or 64 columns of B kept in zmm accumulators): ``vdpbf16ps`` (two
bfloat16 products into each float32 lane), the AVX-512 FP16 FMA ``vfmadd231ph`` (32 binary16
lanes, accumulating in binary16) and VNNI ``vpdpbusd`` (four u8 × s8 products into each int32
lane; A is offset by 128 to be unsigned and 128 × B's column sums are taken back). B is packed
into the instruction's pair or quad layout inside the call. Skipped on a CPU without the
instruction for the run's dtype: nothing is emulated.
"""

from overhead_tui.api import (
    Unavailable,
    cpu_flags,
    dtype_name,
    low_precision_matmul,
    prepare_low_precision,
)

NAME = "c_avx512_dot"
TITLE = "C, AVX-512 BF16 / FP16 / VNNI dot products"
RUNG = 23
LAYERS = ("simd_compute", "memory")
REMOVES = ()
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
DTYPES = ("bfloat16", "float16", "int8")
REQUIRES = ("cffi",)
FLAGS = ["-O3"]
NEEDS = {"bfloat16": "avx512_bf16", "float16": "avx512_fp16", "int8": "avx512_vnni"}
"""The /proc/cpuinfo flag each dtype's instruction needs."""
SOURCE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <string.h>

/* B (K x N, 16-bit) into pairs: row p of the result holds (B[2p][j], B[2p+1][j]) per j */
static void pack_pairs(const uint16_t *b, uint32_t *out, int k, int n) {
    for (int p = 0; p < k / 2; p++)
        for (int j = 0; j < n; j++)
            out[(long)p * n + j] = (uint32_t)b[(long)(2 * p) * n + j]
                                 | ((uint32_t)b[(long)(2 * p + 1) * n + j] << 16);
}

__attribute__((target("avx512bf16,avx512f"), noinline))
static void bf16(const uint16_t *a, const uint16_t *b, float *c, uint32_t *w, int m, int k, int n) {
    pack_pairs(b, w, k, n);
    for (int i = 0; i < m; i += 4)
        for (int j = 0; j < n; j += 32) {
            __m512 acc[4][2];
            for (int r = 0; r < 4; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
            for (int p = 0; p < k / 2; p++) {
                __m512bh b0 = (__m512bh)_mm512_loadu_si512(w + (long)p * n + j);
                __m512bh b1 = (__m512bh)_mm512_loadu_si512(w + (long)p * n + j + 16);
                for (int r = 0; r < 4; r++) {
                    uint32_t pair;
                    memcpy(&pair, a + (long)(i + r) * k + 2 * p, 4);
                    __m512bh x = (__m512bh)_mm512_set1_epi32((int)pair);
                    acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x, b0);
                    acc[r][1] = _mm512_dpbf16_ps(acc[r][1], x, b1);
                }
            }
            for (int r = 0; r < 4; r++) {
                _mm512_storeu_ps(c + (long)(i + r) * n + j, acc[r][0]);
                _mm512_storeu_ps(c + (long)(i + r) * n + j + 16, acc[r][1]);
            }
        }
}

__attribute__((target("avx512fp16,avx512f"), noinline))
static void fp16(const _Float16 *a, const _Float16 *b, _Float16 *c, int m, int k, int n) {
    for (int i = 0; i < m; i += 4)
        for (int j = 0; j < n; j += 64) {
            __m512h acc[4][2];
            for (int r = 0; r < 4; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ph();
            for (int p = 0; p < k; p++) {
                __m512h b0 = _mm512_loadu_ph(b + (long)p * n + j);
                __m512h b1 = _mm512_loadu_ph(b + (long)p * n + j + 32);
                for (int r = 0; r < 4; r++) {
                    __m512h x = _mm512_set1_ph(a[(long)(i + r) * k + p]);
                    acc[r][0] = _mm512_fmadd_ph(x, b0, acc[r][0]);
                    acc[r][1] = _mm512_fmadd_ph(x, b1, acc[r][1]);
                }
            }
            for (int r = 0; r < 4; r++) {
                _mm512_storeu_ph(c + (long)(i + r) * n + j, acc[r][0]);
                _mm512_storeu_ph(c + (long)(i + r) * n + j + 32, acc[r][1]);
            }
        }
}

__attribute__((target("avx512vnni,avx512f,avx512bw"), noinline))
static void vnni(const int8_t *a, const int8_t *b, int32_t *c, int8_t *w, int m, int k, int n) {
    int32_t *sums = (int32_t *)(w + (long)k * n);
    for (int j = 0; j < n; j++) sums[j] = 0;
    for (int q = 0; q < k / 4; q++)  /* quads: (B[4q..4q+3][j]) per j, and B's column sums */
        for (int j = 0; j < n; j++)
            for (int t = 0; t < 4; t++) {
                int8_t v = b[(long)(4 * q + t) * n + j];
                w[((long)q * n + j) * 4 + t] = v;
                sums[j] += v;
            }
    const __m512i flip = _mm512_set1_epi8((char)0x80);  /* s8 -> u8: a + 128 */
    for (int i = 0; i < m; i += 4)
        for (int j = 0; j < n; j += 32) {
            __m512i acc[4][2];
            for (int r = 0; r < 4; r++) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
            for (int q = 0; q < k / 4; q++) {
                __m512i b0 = _mm512_loadu_si512(w + ((long)q * n + j) * 4);
                __m512i b1 = _mm512_loadu_si512(w + ((long)q * n + j + 16) * 4);
                for (int r = 0; r < 4; r++) {
                    int32_t quad;
                    memcpy(&quad, a + (long)(i + r) * k + 4 * q, 4);
                    __m512i x = _mm512_xor_si512(_mm512_set1_epi32(quad), flip);
                    acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], x, b0);
                    acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], x, b1);
                }
            }
            __m512i s0 = _mm512_slli_epi32(_mm512_loadu_si512(sums + j), 7);
            __m512i s1 = _mm512_slli_epi32(_mm512_loadu_si512(sums + j + 16), 7);
            for (int r = 0; r < 4; r++) {
                int32_t *row = c + (long)(i + r) * n + j;
                _mm512_storeu_si512(row, _mm512_sub_epi32(acc[r][0], s0));
                _mm512_storeu_si512(row + 16, _mm512_sub_epi32(acc[r][1], s1));
            }
        }
}

int matmul_lowp(int dtype, const void *a, const void *b, void *c, void *work,
                int m, int k, int n) {
    switch (dtype) {
    case 0: bf16(a, b, c, work, m, k, n); return 0;
    case 1: fp16(a, b, c, m, k, n); return 0;
    case 2: vnni(a, b, c, work, m, k, n); return 0;
    }
    return -1;
}
"""

BUILD_INFO: dict = {}


def setup(a, b):
    dtype = dtype_name(a)
    need = NEEDS.get(dtype)
    if need is not None and need not in cpu_flags():
        raise Unavailable(f"this CPU has no {need.replace('_', '-').upper()} for {dtype}")
    return prepare_low_precision(BUILD_INFO, NAME, SOURCE, FLAGS, a, b, dtype)


def kernel(*args):
    return low_precision_matmul(*args)


def to_numpy(c):
    return c
