"""The CPU's matrix engine: Intel AMX tiles.  C is computed in 32 × 32 blocks of four 16 × 16
accumulator tiles, each step loading two tiles of A and two of B (packed inside the call into
AMX's pair layout for bfloat16, quad layout for int8) and issuing four ``tdpbf16ps`` (bfloat16
products accumulated in float32) or ``tdpbssd`` (int8 × int8 into int32).  The process first
asks Linux for the tile data state (``arch_prctl(ARCH_REQ_XCOMP_PERM)``, Linux ≥ 5.16).
Skipped on a CPU without AMX, or when the kernel refuses the tile state.
"""

from overhead_tui.api import (
    Unavailable,
    cpu_flags,
    dtype_name,
    low_precision_matmul,
    prepare_low_precision,
)

NAME = "c_amx_tiles"
TITLE = "C, AMX tiles (tdpbf16ps / tdpbssd)"
RUNG = 24
SETS = ('default', 'c')
LAYERS = ("dense_kernel", "memory")
DEFAULT_SIZE = 1024
MAX_SIZE = 8192
DTYPES = ("bfloat16", "int8")
REQUIRES = ("cffi",)
FLAGS = ["-O2"]
NEEDS = {"bfloat16": ("amx_tile", "amx_bf16"), "int8": ("amx_tile", "amx_int8")}
"""The /proc/cpuinfo flags each dtype needs."""
SOURCE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

typedef struct {
    uint8_t palette_id, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed)) tile_config;

int amx_permit(void) {
    return (int)syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */);
}

/* B (K x N) into AMX tiles, each 1 KiB contiguous: tile (jb, kb) holds, in row r and column
   j, the word of rows g * per ... g * per + per - 1 of B (g = 16 kb + r) at column 16 jb + j,
   per = 4 / bytes rows per 32-bit word (bfloat16 pairs, int8 quads) */
static void pack(const uint8_t *b, uint32_t *out, int k, int n, int bytes) {
    int per = 4 / bytes, groups = k / per, kb_count = groups / 16;
    for (int g = 0; g < groups; g++) {
        int kb = g / 16, r = g % 16;
        for (int j = 0; j < n; j++) {
            uint32_t word = 0;
            for (int t = 0; t < per; t++) {
                const uint8_t *src = b + ((long)(g * per + t) * n + j) * bytes;
                uint32_t v = bytes == 2 ? *(const uint16_t *)src : *src;
                word |= v << (8 * bytes * t);
            }
            out[(((long)(j / 16) * kb_count + kb) * 16 + r) * 16 + j % 16] = word;
        }
    }
}

/* A (M x K) into 1 KiB tiles: tile (ib, kb) holds rows 16 ib ... and 64 bytes of them */
static void pack_a(const uint8_t *a, uint8_t *out, int m, int k, int bytes) {
    long row = (long)k * bytes, kb_count = row / 64;
    for (int i = 0; i < m; i++)
        for (long kb = 0; kb < kb_count; kb++)
            memcpy(out + ((((long)(i / 16) * kb_count + kb) * 16 + i % 16) << 6),
                   a + i * row + kb * 64, 64);
}

__attribute__((target("amx-tile,amx-bf16,amx-int8"), noinline))
static void tiles(const uint8_t *a, const uint8_t *b, uint8_t *c, uint8_t *w,
                  int m, int k, int n, int int8) {
    int bytes = int8 ? 1 : 2, per = int8 ? 4 : 2, kstep = 64 / bytes;
    uint8_t *pa = w + (long)k * n * bytes;  /* after packed B: A's tiles */
    pack(b, (uint32_t *)w, k, n, bytes);
    pack_a(a, pa, m, k, bytes);
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int t = 0; t < 8; t++) { cfg.rows[t] = 16; cfg.colsb[t] = 64; }
    _tile_loadconfig(&cfg);
    long lda = (long)k * bytes, ldc = (long)n * 4;
    int kb_count = k / per / 16;
    for (int i = 0; i < m; i += 32)
        for (int j = 0; j < n; j += 32) {
            _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
            for (int p = 0; p < k; p += kstep) {
                long ka = (long)p * bytes / 64, a_count = lda / 64;
                const uint8_t *a0 = pa + (((long)(i / 16) * a_count + ka) << 10);
                const uint8_t *a1 = pa + (((long)(i / 16 + 1) * a_count + ka) << 10);
                long kb = p / per / 16;
                const uint8_t *b0 = w + (((long)(j / 16) * kb_count + kb) << 10);
                const uint8_t *b1 = w + (((long)(j / 16 + 1) * kb_count + kb) << 10);
                _tile_loadd(4, a0, 64);
                _tile_loadd(5, a1, 64);
                _tile_loadd(6, b0, 64);
                _tile_loadd(7, b1, 64);
                if (int8) {
                    _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7);
                    _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
                } else {
                    _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7);
                    _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
                }
            }
            uint8_t *cp = c + (long)i * ldc + (long)j * 4;
            _tile_stored(0, cp, ldc); _tile_stored(1, cp + 64, ldc);
            _tile_stored(2, cp + 16 * ldc, ldc); _tile_stored(3, cp + 16 * ldc + 64, ldc);
        }
    _tile_release();
}

int matmul_lowp(int dtype, const void *a, const void *b, void *c, void *work,
                int m, int k, int n) {
    if (dtype != 0 && dtype != 2) return -1;
    tiles(a, b, c, work, m, k, n, dtype == 2);
    return 0;
}
"""
CDEF_EXTRA = "int amx_permit(void);"


def setup(a, b):
    dtype = dtype_name(a)
    missing = [f for f in NEEDS.get(dtype, ()) if f not in cpu_flags()]
    if missing:
        raise Unavailable(f"this CPU has no AMX for {dtype} (no {', '.join(missing)} flag)")
    args = prepare_low_precision(NAME, SOURCE, FLAGS, a, b, dtype, CDEF_EXTRA)
    if args[0].amx_permit() != 0:
        raise Unavailable(
            "Linux refused this process the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM; "
            "Linux 5.16 or later is needed)"
        )
    return args


def kernel(*args):
    return low_precision_matmul(*args)
