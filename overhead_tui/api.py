"""The public module of scenario and probe files: the one part of the package they import.

Scenario files (``scenarios/*.py`` and your own ``--scenarios-dir``):
    ``prepare`` / ``matmul``   build a C rung with cffi and call it (``kit.c_rung``: a file
                               that declares ``SOURCE`` and ``FLAGS`` and no functions needs
                               neither: the worker completes it);
    ``compile_python``         build a rung's Python or Cython source with Cython, mypyc or Pythran
                               and import it (``kit.pybuild``);
    ``python_twin``            that source run as bytecode: what the counting phase counts;
    ``record_build``           record how a rung another tool compiled was built (XLA): the
                               summary's ``build`` (``kit.builds``; ``build_of`` reads it);
    ``Unavailable``            raise it from ``setup`` when the rung cannot run here;
    ``BuildError``             what a build raises when the compiler rejects the source;
    ``disassemble``            object files another compiler made (XLA), as assembly the
                               compiled model reads (a ``generated_assembly()`` returns it);
    ``require_cpu_backend``    a JAX rung's check that JAX has a CPU backend here;
    ``compile_keeping_code``   an XLA compile that keeps its machine code, disassembled;
    ``PACKED_GEMM_SOURCE``     the BLIS-style C source, built with ``gemm_blocking(...)``'s
                               defines from ``read_cache_sizes()`` and ``cpu_flags()``
                               (``kit.packed_gemm``, ``machine.caches``);
    ``TILED_SIMD_SOURCE``      the tiled SIMD C source, serial or OpenMP by ``-fopenmp``
                               (``kit.tiled_simd``).
Probe files (``probes/*.py``): ``measure(ctx)`` receives a ``ProbeContext`` and returns a
``ProbeMeasurement``; the timing helpers
``paired_samples``, ``baseline_loop`` and ``dispatch_samples`` and the SIMD helpers
``isa_target``, ``ISA_LEVELS``, ``chosen_isa``, ``choose_accumulators``, ``analyse_asm`` and
``asm_warning`` (``kit.probing``, ``kit.simd``); ``build`` and ``assembly`` compile a
probe's own C (``kit.cbuild``); ``chain_library``, ``chain_call``, ``chain_instructions``
and ``chain_ghz`` are the dependent chains that measure the clock, ``l1_widths`` and
``L1_KINDS`` describe its L1 kernels (``kit.chains``).

Names are resolved on first use, so a probe worker never imports cffi and a scenario never
imports the probe helpers.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "prepare": "overhead_tui.kit.c_rung",
    "compile_python": "overhead_tui.kit.pybuild",
    "python_twin": "overhead_tui.kit.pybuild",
    "prepare_low_precision": "overhead_tui.kit.low_precision",
    "dtype_name": "overhead_tui.worker.inputs",
    "cpu_flags": "overhead_tui.kit.cbuild",
    "low_precision_matmul": "overhead_tui.kit.low_precision",
    "matmul": "overhead_tui.kit.c_rung",
    "Unavailable": "overhead_tui.kit.cbuild",
    "BuildError": "overhead_tui.kit.cbuild",
    "record_build": "overhead_tui.kit.builds",
    "build_of": "overhead_tui.kit.builds",
    "ProbeContext": "overhead_tui.kit.probing",
    "ProbeMeasurement": "overhead_tui.kit.probing",
    "paired_samples": "overhead_tui.kit.probing",
    "baseline_loop": "overhead_tui.kit.probing",
    "dispatch_samples": "overhead_tui.kit.probing",
    "isa_target": "overhead_tui.kit.probing",
    "usable_cpus": "overhead_tui.kit.probing",
    "build": "overhead_tui.kit.cbuild",
    "chain_library": "overhead_tui.kit.chains",
    "chain_instructions": "overhead_tui.kit.chains",
    "chain_ghz": "overhead_tui.kit.chains",
    "chain_call": "overhead_tui.kit.chains",
    "chain_steps": "overhead_tui.kit.chains",
    "l1_widths": "overhead_tui.kit.chains",
    "L1_KINDS": "overhead_tui.kit.chains",
    "FMA_WIDTHS": "overhead_tui.kit.chains",
    "FMA_PER_ITERATION": "overhead_tui.kit.chains",
    "SHUFFLE_WIDTHS": "overhead_tui.kit.chains",
    "SHUFFLES_PER_ITERATION": "overhead_tui.kit.chains",
    "chosen_isa": "overhead_tui.kit.simd",
    "ISA_LEVELS": "overhead_tui.kit.simd",
    "assembly": "overhead_tui.kit.cbuild",
    "disassemble": "overhead_tui.kit.simd",
    "require_cpu_backend": "overhead_tui.kit.xla",
    "compile_keeping_code": "overhead_tui.kit.xla",
    "choose_accumulators": "overhead_tui.kit.probing",
    "analyse_asm": "overhead_tui.kit.probing",
    "asm_warning": "overhead_tui.kit.probing",
    "SimdTarget": "overhead_tui.kit.probing",
    "gemm_blocking": "overhead_tui.kit.packed_gemm",
    "PACKED_GEMM_SOURCE": "overhead_tui.kit.packed_gemm",
    "TILED_SIMD_SOURCE": "overhead_tui.kit.tiled_simd",
    "PACK_CDEF": "overhead_tui.kit.packed_gemm",
    "read_cache_sizes": "overhead_tui.machine.caches",
    "resident_inputs": "overhead_tui.kit.pages",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'overhead_tui.api' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
