"""What a ladder worker measures of a compiled rung besides its samples: one iteration of its
hot loop, read from its own assembly (``worker.hotloop``), and its kernel timed again with
its data in L1.  Both feed the compiled-rung model (``analysis.compiled``).

Standard library and numpy only (the worker's import rule).
"""

from __future__ import annotations

from typing import Any

from overhead_tui.summary.measured import GeneratedCode, ResidentTiming
from overhead_tui.worker.protocol import WorkerSpec


def time_resident(module: Any, spec: WorkerSpec) -> ResidentTiming | None:
    """The rung's kernel timed at the order whose three matrices fit the L1 data cache
    (``timing.resident_size``), after its samples and in the same worker: the in-cache time
    the memory part of the compiled-rung model is measured against.  None when the rung's
    own n is not larger or its set-up fails there (never an error)."""
    import numpy as np

    from overhead_tui.worker.inputs import make_inputs
    from overhead_tui.worker.timing import (
        RESIDENT_SAMPLES,
        calibrate,
        l1d_bytes,
        resident_size,
        time_calls,
    )

    l1d = l1d_bytes()
    n = resident_size(l1d, np.dtype(spec.dtype).itemsize)
    if n >= spec.n or spec.m is not None or spec.k is not None:
        return None
    try:
        a, b = make_inputs(n, spec.dtype, spec.seed)
        args = module.setup(a, b)
        args = args if isinstance(args, tuple) else (args,)
        warm_s, _ = time_calls(module.kernel, args, 1)
        loops, _ = calibrate(module.kernel, args, warm_s, spec.min_sample_s)
        samples = [time_calls(module.kernel, args, loops)[0] for _ in range(RESIDENT_SAMPLES)]
    except Exception:
        return None
    return ResidentTiming(n, l1d, [s / n**3 for s in samples])


def generated_code(module: Any, dtype: str) -> GeneratedCode | None:
    """One iteration of a compiled rung's hot loop (``worker.hotloop.hot_loop``), before
    its samples: a C rung's ``SOURCE`` compiled with its ``FLAGS`` to assembly (``cc -S``,
    cached), or the assembly of the numba functions its kernel compiled.  None for other
    rungs, for code that is not x86, or when the assembly cannot be had (never an error)."""
    from overhead_tui.worker.hotloop import hot_loop

    try:
        if isinstance(getattr(module, "SOURCE", None), str) and hasattr(module, "BUILD_INFO"):
            from overhead_tui.worker.cbuild import assembly

            asm = assembly(module.SOURCE, list(module.FLAGS), dtype)
            method = "cc -S of the rung's source with its flags"
        else:
            jitted = [
                f for f in vars(module).values() if hasattr(f, "inspect_asm") and f.signatures
            ]
            if not jitted:
                return None
            asm = "\n".join(f.inspect_asm(sig) for f in jitted for sig in f.signatures)
            method = "numba inspect_asm of the compiled functions"
    except Exception:  # the rung still runs; its breakdown falls back to the peak
        return None
    found = hot_loop(asm)
    if not found.fp_instructions:
        return None
    return GeneratedCode(
        method=method,
        fp_instructions=found.fp_instructions,
        fma_instructions=found.fma_instructions,
        width_bits=found.width_bits,
        flops_per_instruction=found.flops_per_instruction,
        hot_loop=found.hot_loop,
        instructions=found.instructions,
        flops=found.flops,
        loads=found.loads,
        stores=found.stores,
        chains=found.chains,
    )
