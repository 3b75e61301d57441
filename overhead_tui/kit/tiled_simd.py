"""The tiled, explicitly vectorised C kernel of the ``c_tiled_simd`` and ``c_openmp`` rungs
(the paper's AVX-intrinsics and parallel-loops steps: Leiserson et al., "There's plenty of
room at the top", Science 368, 2020, Fig. 1).

Panels of 64 columns of B, packed into a 64-byte aligned buffer, and a register block of C
updated with AVX2 fused multiply-adds (``_mm256_fmadd_pd``, two vectors per step) when the
CPU has AVX2 and FMA, GCC's portable vector extensions otherwise.  Built with ``-fopenmp``
(``c_openmp``), the column panels are shared among OpenMP threads, each owning whole panels
(no synchronisation inside); without it (``c_tiled_simd``) the loop is serial and the
preprocessed code has no trace of OpenMP.  Standard library only (the worker's rule).
"""

TILED_SIMD_SOURCE = r"""
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#if REAL_BYTES == 8
typedef __m256d vec_t;
#define W 4
#define VLOAD(p) _mm256_loadu_pd(p)
#define VSTORE(p, v) _mm256_storeu_pd(p, v)
#define VSET1(x) _mm256_set1_pd(x)
#define VFMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define VZERO() _mm256_setzero_pd()
#else
typedef __m256 vec_t;
#define W 8
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSET1(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VZERO() _mm256_setzero_ps()
#endif
#else  /* no AVX2/FMA: GCC portable vector extensions of 32 bytes */
typedef real_t vec_t __attribute__((vector_size(32)));
#define W ((int)(32 / sizeof(real_t)))
static inline vec_t VLOAD(const real_t *p) { vec_t v; memcpy(&v, p, sizeof v); return v; }
static inline void VSTORE(real_t *p, vec_t v) { memcpy(p, &v, sizeof v); }
static inline vec_t VSET1(real_t x) { vec_t v; for (int l = 0; l < W; l++) v[l] = x; return v; }
#define VFMA(a, b, c) ((a) * (b) + (c))
#define VZERO() VSET1(0)
#endif

#define MR 4        /* rows of C per micro-kernel: 4 x 2 vectors = 8 accumulators in registers */
#define NR (2 * W)  /* columns of C per micro-kernel */
#define KC 256      /* k panel: a 256 x NR strip of B (16 KiB in float64) stays in L1 */
#define NC 128      /* column panel of B: 256 x 128 x 8 B = 256 KiB stays in L2 */

static int min_int(int x, int y) { return x < y ? x : y; }

/* C[i:i+MR, j:j+NR] += A[i:i+MR, k0:k1] @ B[k0:k1, j:j+NR], all in registers; bp is the
   B strip packed contiguously (NR values per k), so its loads never conflict in the cache. */
static void micro(const real_t *a, const real_t *bp, real_t *c, int n, int i, int j,
                  int k0, int k1) {
    vec_t c00 = VZERO(), c01 = VZERO(), c10 = VZERO(), c11 = VZERO();
    vec_t c20 = VZERO(), c21 = VZERO(), c30 = VZERO(), c31 = VZERO();
    const real_t *a0 = a + (long)i * n, *a1 = a0 + n, *a2 = a1 + n, *a3 = a2 + n;
    for (int k = k0; k < k1; k++) {
        const real_t *row = bp + (long)(k - k0) * NR;
        const vec_t b0 = VLOAD(row), b1 = VLOAD(row + W);
        vec_t x = VSET1(a0[k]); c00 = VFMA(x, b0, c00); c01 = VFMA(x, b1, c01);
        x = VSET1(a1[k]); c10 = VFMA(x, b0, c10); c11 = VFMA(x, b1, c11);
        x = VSET1(a2[k]); c20 = VFMA(x, b0, c20); c21 = VFMA(x, b1, c21);
        x = VSET1(a3[k]); c30 = VFMA(x, b0, c30); c31 = VFMA(x, b1, c31);
    }
    real_t *r0 = c + (long)i * n + j, *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    VSTORE(r0, VLOAD(r0) + c00); VSTORE(r0 + W, VLOAD(r0 + W) + c01);
    VSTORE(r1, VLOAD(r1) + c10); VSTORE(r1 + W, VLOAD(r1 + W) + c11);
    VSTORE(r2, VLOAD(r2) + c20); VSTORE(r2 + W, VLOAD(r2 + W) + c21);
    VSTORE(r3, VLOAD(r3) + c30); VSTORE(r3 + W, VLOAD(r3 + W) + c31);
}

/* Edges the micro-kernel does not cover: plain scalar loops. */
static void edge(const real_t *a, const real_t *b, real_t *c, int n, int i0, int i1,
                 int j0, int j1, int k0, int k1) {
    for (int i = i0; i < i1; i++)
        for (int k = k0; k < k1; k++) {
            const real_t aik = a[(long)i * n + k];
            for (int j = j0; j < j1; j++) c[(long)i * n + j] += aik * b[(long)k * n + j];
        }
}

static void panel(const real_t *a, const real_t *b, real_t *c, int n, int jj,
                  real_t *packed) {
    const int je = min_int(jj + NC, n);
    const int jv = jj + (je - jj) / NR * NR;  /* columns the micro-kernel covers */
    for (int kk = 0; kk < n; kk += KC) {
        const int ke = min_int(kk + KC, n);
        for (int j = jj; j < jv; j += NR)  /* pack B[kk:ke, j:j+NR] strip by strip */
            for (int k = kk; k < ke; k++)
                memcpy(packed + (long)(j - jj) / NR * KC * NR + (long)(k - kk) * NR,
                       b + (long)k * n + j, NR * sizeof(real_t));
        const int iv = n - n % MR;
        for (int i = 0; i < iv; i += MR) {
            for (int j = jj; j < jv; j += NR)
                micro(a, packed + (long)(j - jj) / NR * KC * NR, c, n, i, j, kk, ke);
            edge(a, b, c, n, i, i + MR, jv, je, kk, ke);
        }
        edge(a, b, c, n, iv, n, jj, je, kk, ke);
    }
}

void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    memset(c, 0, sizeof(real_t) * (size_t)n * n);
#ifdef _OPENMP
    #pragma omp parallel for schedule(dynamic)
#endif
    for (int jj = 0; jj < n; jj += NC) {
        /* one per panel (per thread), on a cache line: malloc's lies 16 bytes past one, where
           every other 256-bit load of the panel spans two lines */
        real_t *packed = aligned_alloc(64, (sizeof(real_t) * KC * NC + 63) / 64 * 64);
        panel(a, b, c, n, jj, packed);
        free(packed);
    }
}
"""
"""The C source: ``void matmul(const real_t *a, const real_t *b, real_t *c, int n)``."""
