"""Latency-bound GFLOP/s of compiled scalar code: a dependent multiply-add chain.

``acc = acc * x + y`` repeated in C (``worker.chains.fp_chain``, built with
``-ffp-contract=off``: a multiply, then an add, no FMA contraction or reassociation), each
step waiting for the previous one: the rate of scalar code that the hardware cannot overlap
(2 flops per step).  ``cycles_per_step`` divides by the clock measured in the same process
(the ``imul`` chain, interleaved): FP multiply + add latency, 6–8 cycles on current cores.
"""

import statistics

from overhead_tui.api import chain_call, chain_ghz, chain_library

NAME = "scalar_fma"
TITLE = "compiled scalar chain"
UNIT = "GFLOP/s"
LAYER = "scalar_compute"
REQUIRES = ("cffi",)
STEPS = 1_000_000
IMUL_ITERATIONS = 500_000


def measure(ctx):
    lib = chain_library()
    pairs = ctx.time_pair(
        lambda: lib.fp_chain(STEPS, 0.999999, 1e-9),
        chain_call(lib, "imul", IMUL_ITERATIONS),
    )
    samples = [2 * STEPS / a / 1e9 for a, _ in pairs]
    details = {"steps": STEPS}
    clocks = [chain_ghz("imul", b, IMUL_ITERATIONS) for _, b in pairs]
    if None not in clocks:
        details["cycles_per_step"] = statistics.median(
            ghz * 1e9 * a / STEPS for ghz, (a, _) in zip(clocks, pairs, strict=True)
        )
    return {"samples": samples, "details": details}
