"""Measured peaks of the lower precisions: AVX-512 BF16, FP16 and VNNI int8, AMX BF16 and int8.

One kernel per instruction family the CPU has (``/proc/cpuinfo`` flags), C intrinsics built
with the project's C build, so the instruction, its width and the accumulators are written,
not chosen by a compiler:

===========  ===========================  ==========================================  =======
family       instruction                  work per instruction                        accum.
===========  ===========================  ==========================================  =======
avx512_bf16  ``vdpbf16ps`` zmm            16 fp32 lanes × 2 bf16 products: 64 FLOP    12
avx512_fp16  ``vfmadd231ph`` zmm          32 fp16 lanes × multiply-add: 64 FLOP       12
avx512_vnni  ``vpdpbusd`` zmm             16 int32 lanes × 4 u8·s8 products: 128 OP   12
amx_bf16     ``tdpbf16ps`` on tiles       16 × 16 × 32 bf16 products: 16,384 FLOP     4 tiles
amx_int8     ``tdpbssd`` on tiles         16 × 16 × 64 s8 products: 32,768 OP         4 tiles
===========  ===========================  ==========================================  =======

AMX needs the kernel's permission first (``arch_prctl(ARCH_REQ_XCOMP_PERM,
XFEATURE_XTILEDATA)``, Linux ≥ 5.16); the four tile products are independent and their
operands stay in tiles (the loop measures the matrix unit, not memory). Each family runs on
one core, beside the ``imul`` chain (``kit.chains``) for the clock of that moment
(``<family>_per_scalar_cycle``: operations per scalar cycle; wide code may run at a lower
licence clock, see ``simd_fma``'s ``vector_clock_ghz``, which ``machine.precision`` uses),
and on every usable CPU at once. int8 families count OP (a multiply or an add), the others
FLOP. A family the CPU lacks is not run; the value is the best one-core floating-point rate
measured (GFLOP/s; int8 only in the details).
"""

import platform
import statistics
from concurrent.futures import ThreadPoolExecutor

from overhead_tui.api import (
    ProbeMeasurement,
    Unavailable,
    build,
    chain_call,
    chain_ghz,
    chain_library,
    cpu_flags,
    usable_cpus,
)

NAME = "precision_peak"
TITLE = "lower-precision peaks (AVX-512 BF16/FP16/VNNI, AMX tiles)"
UNIT = "GFLOP/s"
LAYER = "simd_compute"
REQUIRES = ("cffi",)
PROCESSES = 1
"""One process: compiled kernels on resident registers and tiles vary with the host's load,
not with a process's memory layout; the cold start stays short (about 1 s here)."""
FAMILIES = {
    # family: (cpuinfo flags, C function, operations per call step, unit)
    "avx512_bf16": (("avx512_bf16",), 0, 12 * 64, "FLOP"),
    "avx512_fp16": (("avx512_fp16",), 1, 12 * 64, "FLOP"),
    "avx512_vnni": (("avx512_vnni",), 2, 12 * 128, "OP"),
    "amx_bf16": (("amx_tile", "amx_bf16"), 3, 4 * 16 * 16 * 32 * 2, "FLOP"),
    "amx_int8": (("amx_tile", "amx_int8"), 4, 4 * 16 * 16 * 64 * 2, "OP"),
}
"""Each family: the /proc/cpuinfo flags it needs, its kernel number in :data:`SOURCE`, the
operations one loop step does, and whether they are FLOP or (int8) OP."""
STEPS = {0: 200_000, 1: 200_000, 2: 200_000, 3: 20_000, 4: 20_000}
"""Loop steps per call of each kernel (about 1 ms at the rates measured here)."""
PARALLEL_FACTOR = 20
"""An all-cores call is this many one-core calls long (thread start skew under 1 %)."""
IMUL_ITERATIONS = 100_000
FLAGS = ["-O2"]
SOURCE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#define REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512bf16,avx512f"), noinline))
static double bf16_kernel(long steps) {
    __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80), y = (__m512bh)_mm512_set1_epi16(0x3c00);
#define D(i) __m512 a##i = _mm512_set1_ps((float)(i));
#define S(i) a##i = _mm512_dpbf16_ps(a##i, x, y);
#define T(i) t = _mm512_add_ps(t, a##i);
    REP12(D)
    for (long s = 0; s < steps; s++) { REP12(S) }
    __m512 t = _mm512_setzero_ps();
    REP12(T)
    return _mm512_reduce_add_ps(t);
#undef D
#undef S
#undef T
}

__attribute__((target("avx512fp16,avx512f"), noinline))
static double fp16_kernel(long steps) {
    __m512h x = _mm512_set1_ph((_Float16)0.999f), y = _mm512_set1_ph((_Float16)0.001f);
#define D(i) __m512h a##i = _mm512_set1_ph((_Float16)(i));
#define S(i) a##i = _mm512_fmadd_ph(a##i, x, y);
#define T(i) t = _mm512_add_ph(t, a##i);
    REP12(D)
    for (long s = 0; s < steps; s++) { REP12(S) }
    __m512h t = _mm512_setzero_ph();
    REP12(T)
    return (double)_mm512_reduce_add_ph(t);
#undef D
#undef S
#undef T
}

__attribute__((target("avx512vnni,avx512f"), noinline))
static double vnni_kernel(long steps) {
    __m512i x = _mm512_set1_epi8(1), y = _mm512_set1_epi8(1);
#define D(i) __m512i a##i = _mm512_set1_epi32(i);
#define S(i) a##i = _mm512_dpbusd_epi32(a##i, x, y);
#define T(i) t = _mm512_add_epi32(t, a##i);
    REP12(D)
    for (long s = 0; s < steps; s++) { REP12(S) }
    __m512i t = _mm512_setzero_si512();
    REP12(T)
    return (double)_mm512_reduce_add_epi32(t);
#undef D
#undef S
#undef T
}

typedef struct {
    uint8_t palette_id, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} __attribute__((packed)) tile_config;

int amx_permit(void) { /* 0 when the kernel lets this process use the tile data */
    return (int)syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */);
}

__attribute__((target("amx-tile,amx-bf16,amx-int8"), noinline))
static double amx_kernel(long steps, int int8) {
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int i = 0; i < 8; i++) { cfg.rows[i] = 16; cfg.colsb[i] = 64; }
    _tile_loadconfig(&cfg); /* per thread: every thread configures its own tiles */
    uint16_t a[16 * 32] __attribute__((aligned(64)));
    float c[16 * 16] __attribute__((aligned(64)));
    for (int i = 0; i < 16 * 32; i++) a[i] = int8 ? 0x0101 : 0x3f80;
    _tile_loadd(4, a, 64); _tile_loadd(5, a, 64); _tile_loadd(6, a, 64); _tile_loadd(7, a, 64);
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    if (int8)
        for (long s = 0; s < steps; s++) {
            _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7);
            _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
        }
    else
        for (long s = 0; s < steps; s++) {
            _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
        }
    _tile_stored(0, c, 64);
    _tile_release();
    return c[0];
}

double precision_kernel(int family, long steps) {
    switch (family) {
    case 0: return bf16_kernel(steps);
    case 1: return fp16_kernel(steps);
    case 2: return vnni_kernel(steps);
    case 3: return amx_kernel(steps, 0);
    case 4: return amx_kernel(steps, 1);
    }
    return -1;
}
"""
CDEF = """
int amx_permit(void);
double precision_kernel(int family, long steps);
"""


def families_present(flags):
    """The :data:`FAMILIES` whose flags are all in ``flags``, in table order."""
    return [name for name, (need, *_rest) in FAMILIES.items() if set(need) <= flags]


def measure(ctx):
    if platform.machine().lower() not in ("x86_64", "amd64"):
        raise Unavailable("the lower-precision kernels are x86 (AVX-512, AMX) only")
    present = families_present(cpu_flags())
    if not present:
        raise Unavailable("this CPU has none of AVX-512 BF16/FP16/VNNI or AMX")
    _, lib, _ = build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    if any(f.startswith("amx") for f in present) and lib.amx_permit() != 0:
        present = [f for f in present if not f.startswith("amx")]
        amx_refused = True
    else:
        amx_refused = False
    chains = chain_library()
    threads = usable_cpus()
    details = {"families": ",".join(present), "threads": threads}
    if amx_refused:
        details["amx_warning"] = (
            "the kernel refused AMX tile data to this process (arch_prctl "
            "ARCH_REQ_XCOMP_PERM; Linux ≥ 5.16 needed): AMX not measured"
        )
    best = 0.0
    with ThreadPoolExecutor(threads) as pool:
        for family in present:
            _, number, per_step, _unit = FAMILIES[family]
            steps = STEPS[number]

            def one_core(number=number, steps=steps):
                return lib.precision_kernel(number, steps)

            def all_cores(number=number, steps=steps):
                calls = [
                    pool.submit(lib.precision_kernel, number, steps * PARALLEL_FACTOR)
                    for _ in range(threads)
                ]
                return [c.result() for c in calls]

            one_core()
            pairs = ctx.time_pair(one_core, chain_call(chains, "imul", IMUL_ITERATIONS))
            rates = [per_step * steps / a / 1e9 for a, _ in pairs]
            clocks = [chain_ghz("imul", b, IMUL_ITERATIONS) for _, b in pairs]
            one = statistics.median(rates)
            work = per_step * steps * PARALLEL_FACTOR * threads
            every = statistics.median(work / t / 1e9 for t in ctx.time(all_cores))
            details[f"{family}_one_core"] = one
            details[f"{family}_all_cores"] = every
            if None not in clocks:
                details[f"{family}_per_scalar_cycle"] = statistics.median(
                    r / g for r, g in zip(rates, clocks, strict=True)
                )
            if FAMILIES[family][3] == "FLOP":
                best = max(best, one)
    return ProbeMeasurement([best or max(details[f"{f}_one_core"] for f in present)], details)
