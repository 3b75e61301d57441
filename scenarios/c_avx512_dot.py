"""The widest vector dot-product instructions of AVX-512 for each lower precision:
``vdpbf16ps`` (two bfloat16 products into each float32 lane), the AVX-512 FP16 FMA
``vfmadd231ph`` (32 binary16 lanes, accumulating in binary16) and VNNI ``vpdpbusd`` (four
u8 × s8 products into each int32 lane; A is offset by 128 to be unsigned and 128 × B's column
sums are taken back). bfloat16 and int8 are written the way BLAS is (``c_blocked_packed``):
A and B packed into micro-panels of k-pairs or k-quads in blocks of 512, and an 8 × 32 block
of C in 16 zmm accumulators; float16 keeps a 4 × 64 register block without packing (no CPU
here had AVX-512 FP16 to measure a rewrite on). Packing runs inside the timed call. Skipped
on a CPU without the instruction for the run's dtype: nothing is emulated.
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
SETS = ('default', 'c')
LAYERS = ("simd_compute", "memory")
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
#include <stdlib.h>
#include <string.h>

/* bfloat16 the way BLAS is written (kit.packed_gemm): B packed into micro-panels of
   BF_NR columns of k-pairs, A into micro-panels of BF_MR rows of k-pairs, KC pairs per block
   (an A micro-panel of 8 x 512 pairs is 16 KiB: half an L1d), and an 8 x 32 block of C in 16
   zmm accumulators: per pair of k, 2 loads of B, 8 broadcasts of A, 16 vdpbf16ps. m, k and n
   are multiples of 64 (prepare_low_precision pads them). */
#define BF_MR 8
#define BF_NR 32
#define BF_KC 512  /* pairs of k per block */
#define BF_MC 256  /* rows of A per packed block: 256 x 512 pairs = 512 KiB of L2 */

__attribute__((target("avx512bf16,avx512f"), noinline))
static void bf16_micro(int kc, const uint32_t *restrict ap, const uint32_t *restrict bp,
                       float *restrict c, long ldc) {
    __m512 acc[BF_MR][2];
    for (int r = 0; r < BF_MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int p = 0; p < kc; p++) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(bp + (long)p * BF_NR);
        __m512bh b1 = (__m512bh)_mm512_load_si512(bp + (long)p * BF_NR + 16);
        for (int r = 0; r < BF_MR; r++) {
            __m512bh x = (__m512bh)_mm512_set1_epi32((int)ap[(long)p * BF_MR + r]);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], x, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], x, b1);
        }
    }
    for (int r = 0; r < BF_MR; r++) {
        float *row = c + r * ldc;
        _mm512_storeu_ps(row, _mm512_add_ps(_mm512_loadu_ps(row), acc[r][0]));
        _mm512_storeu_ps(row + 16, _mm512_add_ps(_mm512_loadu_ps(row + 16), acc[r][1]));
    }
}

__attribute__((target("avx512bf16,avx512f"), noinline))
static void bf16(const uint16_t *a, const uint16_t *b, float *c, int m, int k, int n) {
    const int pairs = k / 2;
    uint32_t *bp = aligned_alloc(64, sizeof(uint32_t) * BF_KC * (size_t)n);
    uint32_t *ap = aligned_alloc(64, sizeof(uint32_t) * BF_KC * BF_MC);
    if (!bp || !ap) { free(bp); free(ap); return; }
    memset(c, 0, sizeof(float) * (size_t)m * n);
    for (int pc = 0; pc < pairs; pc += BF_KC) {
        const int kc = pairs - pc < BF_KC ? pairs - pc : BF_KC;
        for (int j = 0; j < n; j += BF_NR)  /* B's k-pairs, micro-panel by micro-panel */
            for (int p = 0; p < kc; p++)
                for (int col = 0; col < BF_NR; col++) {
                    const uint16_t *first = b + 2L * (pc + p) * n + j + col;
                    bp[(long)j * kc + (long)p * BF_NR + col] =
                        (uint32_t)first[0] | ((uint32_t)first[n] << 16);
                }
        for (int ic = 0; ic < m; ic += BF_MC) {
            const int mc = m - ic < BF_MC ? m - ic : BF_MC;
            for (int i = 0; i < mc; i += BF_MR)  /* A's k-pairs, BF_MR rows at a time */
                for (int p = 0; p < kc; p++)
                    for (int r = 0; r < BF_MR; r++)
                        memcpy(ap + (long)i * kc + (long)p * BF_MR + r,
                               a + (long)(ic + i + r) * k + 2L * (pc + p), 4);
            for (int j = 0; j < n; j += BF_NR)
                for (int i = 0; i < mc; i += BF_MR)
                    bf16_micro(kc, ap + (long)i * kc, bp + (long)j * kc,
                               c + (long)(ic + i) * n + j, n);
        }
    }
    free(bp);
    free(ap);
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

/* int8 in the same blocked, packed form: k in quads (4 values of k per 32-bit lane), A
   offset by 128 to be unsigned as it is packed, and 128 x B's column sums taken back. */
__attribute__((target("avx512vnni,avx512f,avx512bw"), noinline))
static void vnni_micro(int kc, const uint32_t *restrict ap, const uint32_t *restrict bp,
                       int32_t *restrict c, long ldc) {
    __m512i acc[BF_MR][2];
    for (int r = 0; r < BF_MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
    for (int q = 0; q < kc; q++) {
        __m512i b0 = _mm512_load_si512(bp + (long)q * BF_NR);
        __m512i b1 = _mm512_load_si512(bp + (long)q * BF_NR + 16);
        for (int r = 0; r < BF_MR; r++) {
            __m512i x = _mm512_set1_epi32((int)ap[(long)q * BF_MR + r]);
            acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], x, b0);
            acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], x, b1);
        }
    }
    for (int r = 0; r < BF_MR; r++) {
        int32_t *row = c + r * ldc;
        _mm512_storeu_si512(row, _mm512_add_epi32(_mm512_loadu_si512(row), acc[r][0]));
        _mm512_storeu_si512(row + 16, _mm512_add_epi32(_mm512_loadu_si512(row + 16), acc[r][1]));
    }
}

__attribute__((target("avx512vnni,avx512f,avx512bw"), noinline))
static void vnni(const int8_t *a, const int8_t *b, int32_t *c, int m, int k, int n) {
    const int quads = k / 4;
    uint32_t *bp = aligned_alloc(64, sizeof(uint32_t) * BF_KC * (size_t)n);
    uint32_t *ap = aligned_alloc(64, sizeof(uint32_t) * BF_KC * BF_MC);
    int32_t *sums = calloc((size_t)n, sizeof(int32_t));
    if (!bp || !ap || !sums) { free(bp); free(ap); free(sums); return; }
    for (long p = 0; p < k; p++)
        for (int j = 0; j < n; j++) sums[j] += b[p * n + j];
    for (long i = 0; i < m; i++)  /* C starts at -128 x B's column sums: A is packed + 128 */
        for (int j = 0; j < n; j++) c[i * n + j] = -128 * sums[j];
    for (int pc = 0; pc < quads; pc += BF_KC) {
        const int kc = quads - pc < BF_KC ? quads - pc : BF_KC;
        for (int j = 0; j < n; j += BF_NR)
            for (int q = 0; q < kc; q++)
                for (int col = 0; col < BF_NR; col++) {
                    uint32_t quad = 0;
                    for (int t = 0; t < 4; t++)
                        quad |= (uint32_t)(uint8_t)b[(4L * (pc + q) + t) * n + j + col] << (8 * t);
                    bp[(long)j * kc + (long)q * BF_NR + col] = quad;
                }
        for (int ic = 0; ic < m; ic += BF_MC) {
            const int mc = m - ic < BF_MC ? m - ic : BF_MC;
            for (int i = 0; i < mc; i += BF_MR)
                for (int q = 0; q < kc; q++)
                    for (int r = 0; r < BF_MR; r++) {
                        uint32_t quad;
                        memcpy(&quad, a + (long)(ic + i + r) * k + 4L * (pc + q), 4);
                        ap[(long)i * kc + (long)q * BF_MR + r] = quad ^ 0x80808080u;
                    }
            for (int j = 0; j < n; j += BF_NR)
                for (int i = 0; i < mc; i += BF_MR)
                    vnni_micro(kc, ap + (long)i * kc, bp + (long)j * kc,
                               c + (long)(ic + i) * n + j, n);
        }
    }
    free(bp);
    free(ap);
    free(sums);
}

int matmul_lowp(int dtype, const void *a, const void *b, void *c, void *work,
                int m, int k, int n) {
    switch (dtype) {
    case 0: bf16(a, b, c, m, k, n); return 0;
    case 1: fp16(a, b, c, m, k, n); return 0;
    case 2: vnni(a, b, c, m, k, n); return 0;
    }
    return -1;
}
"""


def setup(a, b):
    dtype = dtype_name(a)
    need = NEEDS.get(dtype)
    if need is not None and need not in cpu_flags():
        raise Unavailable(f"this CPU has no {need.replace('_', '-').upper()} for {dtype}")
    return prepare_low_precision(NAME, SOURCE, FLAGS, a, b, dtype)


def kernel(*args):
    return low_precision_matmul(*args)
