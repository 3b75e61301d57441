"""Measured compute peak: independent vector FMAs in registers, written for the CPU's ISA.

The kernels are C intrinsics (built with ``kit.cbuild``), one per instruction set, so the
vector width and the number of accumulators are fixed by construction, not left to a
compiler's tuning (LLVM and GCC prefer 256-bit vectors on Intel AVX-512 targets: the numba
probe this replaces reached half the peak on an Emerald Rapids core):

=========  ==================================  ============  ============
ISA        instruction                          width (bits)  accumulators
=========  ==================================  ============  ============
avx512     ``_mm512_fmadd_pd`` / ``_ps`` (zmm)  512           16
avx2       ``_mm256_fmadd_pd`` / ``_ps`` (ymm)  256           12
sse        ``_mm_mul_pd`` + ``_mm_add_pd``      128           12 (no FMA)
neon       ``vfmaq_f64`` / ``vfmaq_f32``        128           16
=========  ==================================  ============  ============

Accumulators: ``kit.simd.choose_accumulators`` (twice FMA latency × pipes, capped at the
registers minus 4); a test checks the C counts against it.  The ISA is the best the CPU has
(``__builtin_cpu_supports``), or the one ``OVERHEAD_TUI_PEAK_ISA`` names (``avx2``, ``sse``)
when it is at most that: the way to measure the peak of older code on a newer CPU.  The
generated assembly of the kernel run is checked (``analyse_asm``): packed FMAs on registers
of the ISA's width, none scalar, no stack access in the hot loop.

The clock under FMA load (``vector_clock_ghz``): a kernel of 12 independent FMAs of the ISA's
width beside a dependent chain of 8 ``imul`` (3 cycles each, ``kit.chains``) a step, so the
chain sets its pace while the vector units work.  Cores with frequency licences run wide
vector code slower than scalar code (an Emerald/Granite Rapids vCPU, 2026-12-02: zmm code at
3.51 GHz against 3.79 for the plain chain, ymm code at the full clock); ``scalar_clock_ghz``
is the plain ``imul`` chain timed beside it, ``vector_clock_ratio`` the two's ratio.

One core: the peak kernel on this thread, each sample beside the loaded-clock kernel, so
that ``flop_per_cycle`` divides by the clock of the same moment and the same load (a shared
host's clock moves between processes). On ARM neither is measured (no tabulated latency).
All cores: one kernel per usable CPU on as many threads at once (cffi releases the GIL
during the call); ``parallel_cores`` is all / one, the number of cores that really computed
side by side (two SMT siblings of one core give about 1): the higher of the float64 and
float32 figures, since load from elsewhere only lowers it. Measured for float64 (the value)
and float32 (details prefixed ``float32_``)."""

import os
import platform
import statistics
from concurrent.futures import ThreadPoolExecutor

from overhead_tui.api import (
    ISA_LEVELS,
    ProbeMeasurement,
    Unavailable,
    analyse_asm,
    asm_warning,
    assembly,
    build,
    chain_call,
    chain_ghz,
    chain_library,
    chosen_isa,
    isa_target,
    usable_cpus,
)

NAME = "simd_fma"
TITLE = "SIMD FMA peak (ISA-explicit intrinsics)"
UNIT = "GFLOP/s"
LAYER = "simd_compute"
REQUIRES = ("cffi",)
STEPS = 200_000
"""Loop iterations per call (each: one FMA per accumulator): about 0.5 ms on one core."""
PARALLEL_STEPS = 50 * STEPS
"""Loop iterations per thread per all-cores call (about 25 ms), so that handing the calls to
the threads and their start skew (tens of µs) cost under 1 %."""
ACCUMULATORS = {"avx512": 16, "avx2": 12, "sse": 12, "neon": 16}
"""Vector accumulators of each kernel, as written in :data:`SOURCE`."""
FLAGS = ["-O2"]
SOURCE = r"""
#include <stdint.h>
#define REP12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define REP16(X) REP12(X) X(12) X(13) X(14) X(15)
#define DECL(i) V a##i = SET1((R)1 + (R)(i) / 64); /* distinct: equal chains would be merged */
#define STEP(i) a##i = FMA(a##i, vx, vy);
#define SUM(i) t = ADD(t, a##i);
#define BODY(REP)                                                         \
    V vx = SET1(x), vy = SET1(y), t = SET1((R)0);                        \
    REP(DECL)                                                             \
    for (long s = 0; s < steps; s++) { REP(STEP) }                        \
    REP(SUM)                                                              \
    R lanes[sizeof(V) / sizeof(R)], total = 0;                            \
    STORE(lanes, t);                                                      \
    for (unsigned l = 0; l < sizeof(V) / sizeof(R); l++) total += lanes[l]; \
    return total;

#if defined(__x86_64__)
#include <immintrin.h>
/* The clock under FMA load: 12 independent FMAs and a dependent chain of 8 imuls
   (3 cycles each: 24 cycles) per step.  The chain is the critical path even on a core with
   one FMA unit, and the FMAs keep the vector units busy enough for the frequency the core
   grants to such code (Intel's AVX-512 licences). */
#define MUL8 "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t" \
             "imul %1, %0\n\timul %1, %0\n\timul %1, %0\n\timul %1, %0\n\t"
#define LOADED                                                            \
    V vx = SET1(x), vy = SET1(y), t = SET1((R)0);                        \
    REP12(DECL)                                                           \
    uint64_t r = 3;                                                       \
    for (long s = 0; s < steps; s++) {                                    \
        REP12(STEP)                                                       \
        __asm__ volatile(MUL8 : "+r"(r) : "r"(m));                        \
    }                                                                     \
    REP12(SUM)                                                            \
    R lanes[sizeof(V) / sizeof(R)], total = (R)(r & 1);                   \
    STORE(lanes, t);                                                      \
    for (unsigned l = 0; l < sizeof(V) / sizeof(R); l++) total += lanes[l]; \
    return total;
int isa_level(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 3;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 2;
    return 1;
}
#define R double
#define V __m512d
#define SET1 _mm512_set1_pd
#define FMA _mm512_fmadd_pd
#define ADD _mm512_add_pd
#define STORE _mm512_storeu_pd
__attribute__((target("avx512f"), noinline))
double avx512_f64(long steps, double x, double y) { BODY(REP16) }
__attribute__((target("avx512f"), noinline))
double avx512_clock(long steps, double x, double y, uint64_t m) { LOADED }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R float
#define V __m512
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define STORE _mm512_storeu_ps
__attribute__((target("avx512f"), noinline))
float avx512_f32(long steps, float x, float y) { BODY(REP16) }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R double
#define V __m256d
#define SET1 _mm256_set1_pd
#define FMA _mm256_fmadd_pd
#define ADD _mm256_add_pd
#define STORE _mm256_storeu_pd
__attribute__((target("avx2,fma"), noinline))
double avx2_f64(long steps, double x, double y) { BODY(REP12) }
__attribute__((target("avx2,fma"), noinline))
double avx2_clock(long steps, double x, double y, uint64_t m) { LOADED }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R float
#define V __m256
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define STORE _mm256_storeu_ps
__attribute__((target("avx2,fma"), noinline))
float avx2_f32(long steps, float x, float y) { BODY(REP12) }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R double
#define V __m128d
#define SET1 _mm_set1_pd
#define FMA(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c)
#define ADD _mm_add_pd
#define STORE _mm_storeu_pd
__attribute__((noinline))
double sse_f64(long steps, double x, double y) { BODY(REP12) }
__attribute__((noinline))
double sse_clock(long steps, double x, double y, uint64_t m) { LOADED }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R float
#define V __m128
#define SET1 _mm_set1_ps
#define FMA(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define ADD _mm_add_ps
#define STORE _mm_storeu_ps
__attribute__((noinline))
float sse_f32(long steps, float x, float y) { BODY(REP12) }
double peak_f64(int isa, long steps, double x, double y) {
    return isa == 3   ? avx512_f64(steps, x, y)
           : isa == 2 ? avx2_f64(steps, x, y)
                      : sse_f64(steps, x, y);
}
double loaded_clock(int isa, long steps, double x, double y, uint64_t m) {
    return isa == 3   ? avx512_clock(steps, x, y, m)
           : isa == 2 ? avx2_clock(steps, x, y, m)
                      : sse_clock(steps, x, y, m);
}
float peak_f32(int isa, long steps, float x, float y) {
    return isa == 3   ? avx512_f32(steps, x, y)
           : isa == 2 ? avx2_f32(steps, x, y)
                      : sse_f32(steps, x, y);
}
#elif defined(__aarch64__)
#include <arm_neon.h>
int isa_level(void) { return 4; }
#define R double
#define V float64x2_t
#define SET1 vdupq_n_f64
#define FMA(a, b, c) vfmaq_f64(a, b, c) /* a += b * c: fmla accumulates in place */
#define ADD vaddq_f64
#define STORE vst1q_f64
__attribute__((noinline))
double neon_f64(long steps, double x, double y) { BODY(REP16) }
#undef R
#undef V
#undef SET1
#undef FMA
#undef ADD
#undef STORE
#define R float
#define V float32x4_t
#define SET1 vdupq_n_f32
#define FMA(a, b, c) vfmaq_f32(a, b, c)
#define ADD vaddq_f32
#define STORE vst1q_f32
__attribute__((noinline))
float neon_f32(long steps, float x, float y) { BODY(REP16) }
double peak_f64(int isa, long steps, double x, double y) { return neon_f64(steps, x, y); }
float peak_f32(int isa, long steps, float x, float y) { return neon_f32(steps, x, y); }
/* no tabulated latency for a dependent chain on ARM: the clock under load is not measured */
double loaded_clock(int isa, long steps, double x, double y, uint64_t m) { return -1; }
#else
#error "the SIMD peak probe has kernels for x86-64 and aarch64 only"
#endif
"""
CDEF = """
int isa_level(void);
double peak_f64(int isa, long steps, double x, double y);
float peak_f32(int isa, long steps, float x, float y);
double loaded_clock(int isa, long steps, double x, double y, uint64_t m);
"""
WIDTH_BITS = {"avx512": 512, "avx2": 256, "sse": 128, "neon": 128}
LANE_BYTES = {"f64": 8, "f32": 4}


def function_asm(asm, name):
    """The assembly of one function (from its label to its ``.size``/end) in ``cc -S`` text."""
    lines = asm.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"{name}:")), None)
    if start is None:
        return ""
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].strip().startswith(".size")),
        len(lines),
    )
    return "\n".join(lines[start:end])


IMUL_ITERATIONS = 100_000
"""imul chain iterations timed beside the loaded clock (the scalar clock of that moment)."""
CLOCK_STEPS = 30_000
"""Steps of the loaded-clock kernel per call (24 cycles each: about 0.2 ms at 3.5 GHz)."""
CLOCK_MULTIPLIER = 0x9E3779B97F4A7C15
"""The loaded-clock kernel's imul multiplier (odd, so the chain never reaches 0)."""


def loaded_clock(ctx, lib, chains, isa, code):
    """(a call of the loaded-clock kernel, its details: ``vector_clock_ghz`` under this ISA's
    FMA load, ``scalar_clock_ghz`` of the plain chain beside it, …): GHz from the loaded
    kernel's 8 dependent imuls a step (the same 8 × 3 cycles as ``kit.chains``' imul
    chain, so ``chain_ghz`` converts both); (None, {}) where imul has no tabulated latency."""
    level = ISA_LEVELS[isa]

    def call():
        return lib.loaded_clock(level, CLOCK_STEPS, 0.999999, 1e-9, CLOCK_MULTIPLIER)

    if chain_ghz("imul", 1.0, 1) is None or call() == -1:
        return None, {}
    body = function_asm(code, f"{isa}_clock")
    imuls = sum(1 for line in body.splitlines() if line.split()[:1] == ["imul"])
    fmas = analyse_asm(body).fma_on_widest
    pairs = ctx.time_pair(call, chain_call(chains, "imul", IMUL_ITERATIONS))
    loaded = statistics.median(chain_ghz("imul", a, CLOCK_STEPS) for a, _ in pairs)
    scalar = statistics.median(chain_ghz("imul", b, IMUL_ITERATIONS) for _, b in pairs)
    details = {
        "vector_clock_ghz": loaded,
        "scalar_clock_ghz": scalar,
        "vector_clock_ratio": loaded / scalar,
        "clock_kernel_imuls": imuls,
        "clock_kernel_fmas": fmas,
    }
    return call, details


def _measure_dtype(ctx, lib, clock_call, isa, code, suffix, threads, pool):
    run = lib.peak_f64 if suffix == "f64" else lib.peak_f32
    level = ISA_LEVELS[isa]
    lanes = WIDTH_BITS[isa] // (8 * LANE_BYTES[suffix])
    flops = 2 * lanes * ACCUMULATORS[isa] * STEPS
    x, y = 0.999999, 1e-9

    def one_core():
        return run(level, STEPS, x, y)

    def all_cores():
        futures = [pool.submit(run, level, PARALLEL_STEPS, x, y) for _ in range(threads)]
        return [f.result() for f in futures]

    one_core()
    if clock_call is not None:
        pairs = ctx.time_pair(one_core, clock_call)
        clocks = [chain_ghz("imul", b, CLOCK_STEPS) for _, b in pairs]
    else:
        pairs, clocks = [(t, None) for t in ctx.time(one_core)], [None]
    one = statistics.median(flops / a / 1e9 for a, _ in pairs)
    scale = PARALLEL_STEPS / STEPS
    every = [threads * scale * flops / t / 1e9 for t in ctx.time(all_cores)]
    report = analyse_asm(function_asm(code, f"{isa}_{suffix}"))
    target = isa_target(isa)
    details = {
        "one_core": one,
        "flop_per_cycle": (
            statistics.median(
                flops / a / (g * 1e9) for (a, _), g in zip(pairs, clocks, strict=True)
            )
            if None not in clocks
            else None
        ),
        "lanes": lanes,
        "accumulators": ACCUMULATORS[isa],
        "fma_instructions": report.fma_on_widest,
        "spills": report.spills,
        "width_bits": report.width_bits,
    }
    if report.scalar_fma:
        details["scalar_fma_instructions"] = report.scalar_fma
    if target.fma and (warning := asm_warning(report, target)):
        details["asm_warning"] = warning
    return every, details


def prepare():
    """Build the peak kernels and the clock chains (a run builds them before anything is
    timed)."""
    build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    chain_library()


def measure(ctx):
    arch = platform.machine().lower()
    if arch not in ("x86_64", "amd64", "aarch64", "arm64"):
        raise Unavailable(f"no SIMD peak kernels for {arch} (x86-64 and aarch64 only)")
    _, lib, _ = build(NAME, SOURCE, FLAGS, "float64", cdef=CDEF)
    chains = chain_library()
    best = {value: name for name, value in ISA_LEVELS.items()}[lib.isa_level()]
    try:
        isa, source = chosen_isa(best, os.environ.get("OVERHEAD_TUI_PEAK_ISA"))
    except ValueError as exc:
        raise Unavailable(str(exc)) from None
    code = assembly(SOURCE, FLAGS)
    threads = usable_cpus()
    clock_call, clock = loaded_clock(ctx, lib, chains, isa, code)
    with ThreadPoolExecutor(threads) as pool:
        every64, f64 = _measure_dtype(ctx, lib, clock_call, isa, code, "f64", threads, pool)
        every32, f32 = _measure_dtype(ctx, lib, clock_call, isa, code, "f32", threads, pool)
    one64, one32 = f64.pop("one_core"), f32.pop("one_core")
    all64 = statistics.median(every64)
    width = f64.pop("width_bits") or WIDTH_BITS[isa]
    f32.pop("width_bits")
    details = {
        "one_core_gflops": one64,
        "float32_gflops": statistics.median(every32),
        "float32_one_core_gflops": one32,
        "threads": threads,
        "parallel_cores": max(all64 / one64, statistics.median(every32) / one32),
        "isa": isa,
        "best_isa": best,
        "target_from": source,
        "simd_width_bits": width,
        **clock,
        **{k: v for k, v in f64.items() if v is not None},
        **{f"float32_{key}": value for key, value in f32.items() if value is not None},
    }
    return ProbeMeasurement(every64, details)
