"""A matrix multiply written the way BLIS and GotoBLAS write theirs: the C source of the
``c_blocked_packed`` rungs and the blocking they are built with.

The algorithm (Goto & van de Geijn, "Anatomy of high-performance matrix multiplication",
ACM TOMS 34(3), 2008; the BLIS loop nest of Van Zee & van de Geijn, ACM TOMS 41(3), 2015):
five loops around a *micro-kernel* that keeps an MR × NR block of C in vector registers
while it runs over KC values of k.  B is copied ("packed") into a KC × NC panel that stays in
the last-level cache, in micro-panels of NR columns, contiguous in k; A into an MC × KC
block that stays in L2, in micro-panels of MR rows.  The micro-kernel then reads both as
unit-stride streams: one KC × NR micro-panel of B from L1, one MR × KC micro-panel of A.
Packing pads the edges with zeros, so every micro-kernel call is a full MR × NR block; only
its write-back is cut to the matrix.  Packing happens inside the timed call.

:func:`gemm_blocking` derives the shapes from the vector width and register count of the
ISA the rung is compiled for and the CPU's cache sizes, in the spirit of Low, Igual, Smith &
Quintana-Ortí ("Analytical modeling is enough for high-performance BLIS", ACM TOMS 43(2),
2016): an A micro-panel (MR × KC) fills half of L1d, an A block (MC × KC) half of L2, a B
panel (KC × NC) half of the L3.  Their model keeps B's KC × NR micro-panel in L1 instead; on
AVX-512's 8 × 24 register block that gives KC = 84, which measured 40 GFLOP/s against 48–51
at KC = 256–384 on a 2-vCPU Zen 4 (2026-12-06, n = 1024, OpenBLAS one thread 51–52): the
update of C, once per KC, costs more there than reading B's micro-panel from L2 (BLIS's own
AVX-512 kernels use KC = 384).  The cache sizes are the ones the machine reports (sysfs).
Standard library only (the worker's rule).
"""

from __future__ import annotations

from dataclasses import dataclass

from overhead_tui.kit.simd import best_isa, isa_target

REGISTER_SHAPES = {
    # ISA: (MR rows, NV vectors of columns)
    "avx512": (8, 3),  # 24 accumulators + 3 of B + 1 broadcast of A, of 32 zmm
    "avx2": (6, 2),  # BLIS's haswell 6 × 8 dgemm block: 12 + 2 + 1 of 16 ymm
    "neon": (8, 2),  # 16 + 2 + 1 of 32 V registers
    "sse": (4, 2),  # 8 + 2 + 1 of 16 xmm
}
"""Register blocks that leave the accumulators, one vector of B per NV and a broadcast of A
in the ISA's registers (``kit.simd.ISA_TARGETS``): the micro-kernel's FMAs per k
(MR × NV) outnumber its loads (NV + MR)."""

KC_RANGE = (64, 1024)
MAX_NC = 8192


@dataclass(frozen=True)
class Blocking:
    """The shapes of one build: the register block (MR × NR) and the cache blocks."""

    vector_bytes: int
    """Bytes of one vector register the micro-kernel uses (64: AVX-512, 32: AVX2, 16)."""
    mr: int
    """Rows of C in registers."""
    nv: int
    """Vectors of columns of C in registers (NR = NV × lanes)."""
    nr: int
    """Columns of C in registers."""
    kc: int
    """Values of k per micro-kernel call: an MR × KC micro-panel of A fills half of L1d."""
    mc: int
    """Rows of A per packed block: an MC × KC block fills half of L2 (a multiple of MR)."""
    nc: int
    """Columns of B per packed panel: a KC × NC panel fills half of the L3 (a multiple of NR,
    at most :data:`MAX_NC`)."""

    @property
    def packed_b_values(self) -> int:
        """Values of the buffer one packed B panel takes: KC × (NC + NR)."""
        return self.kc * (self.nc + self.nr)

    def defines(self) -> list[str]:
        """The compiler flags that build the source with this blocking."""
        return [
            f"-DGEMM_VECTOR_BYTES={self.vector_bytes}",
            f"-DGEMM_MR={self.mr}",
            f"-DGEMM_NV={self.nv}",
            f"-DGEMM_KC={self.kc}",
            f"-DGEMM_MC={self.mc}",
            f"-DGEMM_NC={self.nc}",
        ]


def gemm_blocking(caches: dict[str, int], flags: set[str], real_bytes: int = 8) -> Blocking:
    """The blocking of this CPU for elements of ``real_bytes`` (module docstring).

    Args:
        caches: {``L1d``, ``L2``, ``L3``: bytes} (``machine.caches.read_cache_sizes``); a
            missing level takes the one below it (no L3: the L2), a missing L1d 32 KiB.
        flags: the CPU's instruction-set flags (``cbuild.cpu_flags``): the ISA
            ``-march=native`` compiles for (``kit.simd.best_isa``).
    """
    target = isa_target(best_isa(flags))
    vector_bytes = target.width_bits // 8
    mr, nv = REGISTER_SHAPES[target.isa]
    nr = nv * vector_bytes // real_bytes
    l1 = caches.get("L1d") or 32 * 1024
    l2 = caches.get("L2") or 8 * l1
    l3 = caches.get("L3") or l2
    kc = l1 // 2 // (mr * real_bytes) // 4 * 4
    kc = max(KC_RANGE[0], min(KC_RANGE[1], kc))
    mc = max(mr, l2 // 2 // (kc * real_bytes) // mr * mr)
    nc = max(nr, min(MAX_NC, l3 // 2 // (kc * real_bytes)) // nr * nr)
    return Blocking(vector_bytes, mr, nv, nr, kc, mc, nc)


PACKED_GEMM_SOURCE = r"""
#include <stdlib.h>
#include <string.h>
#ifndef GEMM_MR
#error "build with the flags of overhead_tui.api.gemm_blocking(...).defines()"
#endif
#define MR GEMM_MR
#define NV GEMM_NV
#define VB GEMM_VECTOR_BYTES
#define W ((int)(VB / sizeof(real_t)))
#define NR (NV * W)
#define KC GEMM_KC
#define MC GEMM_MC
#define NC GEMM_NC

typedef real_t vec_t __attribute__((vector_size(VB)));
typedef real_t uvec_t __attribute__((vector_size(VB), aligned(sizeof(real_t))));

static int min_int(int x, int y) { return x < y ? x : y; }

/* C[0:m, 0:nn] += Ap (MR x kc, k-major) @ Bp (kc x NR, k-major); the MR x NR block of C
   stays in MR * NV vector registers for all kc steps. */
static void micro(int kc, const real_t *restrict ap, const real_t *restrict bp,
                  real_t *restrict c, long ldc, int m, int nn) {
    vec_t acc[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) acc[r][v] = (vec_t){0};
    for (int k = 0; k < kc; k++) {
        vec_t bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) bv[v] = *(const vec_t *)(bp + (long)k * NR + v * W);
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++) {
            vec_t av;  /* one value of A in every lane: a broadcast */
            const real_t x = ap[(long)k * MR + r];
#pragma GCC unroll 16
            for (int l = 0; l < W; l++) av[l] = x;
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) acc[r][v] += av * bv[v];
        }
    }
    if (m == MR && nn == NR) {
#pragma GCC unroll 16
        for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
            for (int v = 0; v < NV; v++) {
                uvec_t *out = (uvec_t *)(c + r * ldc + v * W);
                *out += acc[r][v];
            }
        return;
    }
    real_t tile[MR * NR] __attribute__((aligned(64)));
    for (int r = 0; r < MR; r++)
        for (int v = 0; v < NV; v++) *(vec_t *)(tile + r * NR + v * W) = acc[r][v];
    for (int r = 0; r < m; r++)
        for (int j = 0; j < nn; j++) c[r * ldc + j] += tile[r * NR + j];
}

/* A[0:mc, 0:kc] (row stride lda) into micro-panels of MR rows, k-major, zero-padded. */
static void pack_a(int mc, int kc, const real_t *a, long lda, real_t *ap) {
    for (int i = 0; i < mc; i += MR)
        for (int k = 0; k < kc; k++)
            for (int r = 0; r < MR; r++)
                *ap++ = i + r < mc ? a[(long)(i + r) * lda + k] : 0;
}

/* B[0:kc, j0:j1] (row stride ldb) into micro-panels of NR columns, k-major, zero-padded. */
static void pack_b(int kc, int nc, int j0, int j1, const real_t *b, long ldb, real_t *bp) {
    for (int j = j0; j < j1; j += NR) {
        real_t *dst = bp + (long)j * kc;
        for (int k = 0; k < kc; k++)
            for (int col = 0; col < NR; col++)
                *dst++ = j + col < nc ? b[(long)k * ldb + j + col] : 0;
    }
}

static size_t rounded(size_t bytes) { return (bytes + 63) / 64 * 64; }

/* Every KC x NC panel of a k x n B packed as matmul packs it, into the caller's bp (KC x
   (NC + NR) values, so the stores are observable), and nothing else: what packing B costs
   one call (the stream_triad probe times it). */
void pack_all(const real_t *b, int k, int n, real_t *bp) {
    for (int jc = 0; jc < n; jc += NC) {
        const int nc = min_int(NC, n - jc);
        const int strips = (nc + NR - 1) / NR;
        for (int pc = 0; pc < k; pc += KC)
            for (int s = 0; s < strips; s++)
                pack_b(min_int(KC, k - pc), nc, s * NR, s * NR + NR, b + (long)pc * n + jc, n, bp);
    }
}

void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    memset(c, 0, sizeof(real_t) * (size_t)n * n);
    real_t *bp = aligned_alloc(64, rounded(sizeof(real_t) * KC * (NC + NR)));
    real_t *ap = aligned_alloc(64, rounded(sizeof(real_t) * (MC + MR) * KC));
    if (!bp || !ap) { free(bp); free(ap); return; }
#pragma omp parallel
    for (int jc = 0; jc < n; jc += NC) {
        const int nc = min_int(NC, n - jc);
        const int strips = (nc + NR - 1) / NR;
        for (int pc = 0; pc < n; pc += KC) {
            const int kc = min_int(KC, n - pc);
#pragma omp for schedule(static)
            for (int s = 0; s < strips; s++)
                pack_b(kc, nc, s * NR, s * NR + NR, b + (long)pc * n + jc, n, bp);
            for (int ic = 0; ic < n; ic += MC) {
                const int mc = min_int(MC, n - ic);
#pragma omp single
                pack_a(mc, kc, a + (long)ic * n + pc, n, ap);
#pragma omp for schedule(static)
                for (int s = 0; s < strips; s++) {
                    const int jr = s * NR;
                    for (int ir = 0; ir < mc; ir += MR)
                        micro(kc, ap + (long)ir * kc, bp + (long)jr * kc,
                              c + (long)(ic + ir) * n + jc + jr, n,
                              min_int(MR, mc - ir), min_int(NR, nc - jr));
                }
            }
        }
    }
    free(bp);
    free(ap);
}
"""
"""The C source of the ``c_blocked_packed`` rungs: without ``-fopenmp`` its ``omp``
pragmas are ignored and it runs on one thread; with it the packing of B and the micro-kernel
calls of each A block are shared among the threads (the JR loop, as BLIS parallelises).
``pack_all`` (:data:`PACK_CDEF`) packs a B alone: the ``stream_triad`` probe times it."""

PACK_CDEF = "void pack_all(const double *b, int k, int n, double *bp);"
"""The packing routine's C signature (float64)."""
