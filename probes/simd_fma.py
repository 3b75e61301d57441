"""Measured compute peak: independent vector multiply-adds on L1-resident data, one core and all.

A block of accumulators is updated ``acc[i] = acc[i] * x + y`` in a fixed-length inner loop
under numba ``fastmath``: LLVM contracts it to FMA, vectorises it to the target's widest SIMD
registers and keeps the block in registers.  The block's size follows the ISA numba compiles
for (``engine.simd``): twice FMA latency × pipes = 16 independent vector chains, capped at the
vector registers minus 4 for the operands — 16 zmm on AVX-512 (128 float64, 256 float32),
12 ymm on AVX2 (48 float64, 96 float32), 12 xmm on SSE.  The compiled kernel's assembly is
checked: packed FMAs on the widest registers, none scalar, no stack access in the hot loop
(a spill); when LLVM picks narrower registers than the target has, the block is re-sized for
them.  The all-cores figure runs one block per numba thread with ``prange``.  Measured for
float64 (the value) and float32 (details).

Details: ``isa``, ``target_cpu`` and ``target_from`` (host, or the ``NUMBA_CPU_NAME`` /
``NUMBA_CPU_FEATURES`` set), ``simd_width_bits`` of the FMAs found, and per dtype (float32
keys prefixed ``float32_``) ``lanes``, ``accumulators`` (vector chains), ``fma_instructions``
(packed FMAs on the widest registers in the hot loop), ``spills`` and ``asm_warning`` when the
code cannot reach the peak.  Forcing AVX2 on an AVX-512 host takes both variables:
``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=`` (the name alone keeps the host's AVX-512 flags).

Measured on a 2-vCPU AMD EPYC Zen 5 VM (``znver5``, 2 × 512-bit FMA) at about 4.3 GHz, one
core, clock and block timed back to back: 136–138 GFLOP/s float64 and 271–276 float32 with
AVX-512 code (1.00 of 32 / 64 FLOP/cycle × clock); 68–69 and 136–138 with AVX2 code
(``haswell``; 1.00 of 16 / 32), where the old 128-accumulator block spilled and reached 0.71.
"""

from dataclasses import replace
from itertools import islice

import numpy as np
from numba import get_num_threads, njit, prange

from overhead_tui.api import (
    analyse_asm,
    asm_warning,
    choose_accumulators,
    numba_target,
)

NAME = "simd_fma"
TITLE = "SIMD FMA peak"
UNIT = "GFLOP/s"
LAYER = "simd_compute"
REQUIRES = ("numba",)
STEPS = 50_000
CHAIN = 4
"""Dependent FMAs per accumulator per step: a loop body this large is vectorised by LLVM's loop
vectoriser; a one-FMA body of 48 float64 (AVX2) is fully unrolled first and left scalar."""
TRIES = 4
"""Block sizes compiled at most before keeping the best asm found."""


def _kernels(width):
    """(one block, one block per thread) kernels for a block of ``width`` accumulators."""

    @njit(fastmath=True, cache=False)
    def block(steps, x, y, acc):
        for _ in range(steps):
            for i in range(width):
                a = acc[i] * x + y
                a = a * x + y
                a = a * x + y
                acc[i] = a * x + y
        return acc[0]

    @njit(parallel=True, fastmath=True, cache=False)
    def all_cores(steps, x, y, accs):
        for t in prange(accs.shape[0]):
            block(steps, x, y, accs[t])

    return block, all_cores


def _candidates(target, itemsize):
    """Accumulator choices to try: the chosen one, then other chain counts within the registers."""
    chosen = choose_accumulators(target.width_bits, target.registers, itemsize)
    yield chosen
    for vectors in range(chosen.vectors - 1, chosen.needed - 1, -1):
        yield replace(chosen, vectors=vectors)


def _compile(dtype, target):
    """Kernels for the first block size whose asm is clean (else the last tried): (block,
    all_cores, accumulators, asm analysis, warning).  When LLVM uses narrower registers than
    the target has, the block is re-sized once for them (the warning still says so)."""
    itemsize = np.dtype(dtype).itemsize
    sized = target
    for _ in range(2):
        for chosen in islice(_candidates(sized, itemsize), TRIES):
            block, all_cores = _kernels(chosen.elements)
            block(1, dtype(1.0), dtype(0.0), np.ones(chosen.elements, dtype=dtype))
            report = analyse_asm("\n".join(block.inspect_asm().values()))
            narrower = report.width_bits and report.width_bits < sized.width_bits
            if narrower or not sized.fma or asm_warning(report, sized) is None:
                break
        if not narrower:
            break
        sized = replace(sized, width_bits=report.width_bits)
    return block, all_cores, chosen, report, asm_warning(report, target)


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def _measure_dtype(ctx, dtype, threads, target):
    block, all_cores, chosen, report, warning = _compile(dtype, target)
    width = chosen.elements
    flops = 2 * CHAIN * width * STEPS
    x, y = dtype(0.999999), dtype(1e-9)
    acc = np.ones(width, dtype=dtype)
    accs = np.ones((threads, width), dtype=dtype)
    all_cores(10, x, y, accs)
    one = [flops / t / 1e9 for t in ctx.time(block, STEPS, x, y, acc)]
    every = [threads * flops / t / 1e9 for t in ctx.time(all_cores, STEPS, x, y, accs)]
    details = {
        "lanes": chosen.lanes,
        "accumulators": chosen.vectors,
        "fma_instructions": report.fma_on_widest,
        "spills": report.spills,
    }
    if report.scalar_fma:
        details["scalar_fma_instructions"] = report.scalar_fma
    if warning:
        details["asm_warning"] = warning
    return one, every, details, report.width_bits


def measure(ctx):
    threads = get_num_threads()
    target = numba_target()
    one64, every64, f64, width = _measure_dtype(ctx, np.float64, threads, target)
    one32, every32, f32, _ = _measure_dtype(ctx, np.float32, threads, target)
    return {
        "samples": every64,
        "details": {
            "one_core_gflops": _median(one64),
            "float32_gflops": _median(every32),
            "float32_one_core_gflops": _median(one32),
            "threads": threads,
            "isa": target.isa,
            "target_cpu": target.cpu_name,
            "target_from": target.source,
            "simd_width_bits": width or target.width_bits,
            **f64,
            **{f"float32_{key}": value for key, value in f32.items()},
        },
    }
