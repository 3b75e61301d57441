"""The public module of scenario and probe files: the one part of the package they import.

Scenario files (``scenarios/*.py`` and your own ``--scenarios-dir``):
    ``prepare`` / ``matmul``   build a C rung with cffi and call it (``engine.cbuild``);
    ``Unavailable``            raise it from ``setup`` when the rung cannot run here.
Probe files (``probes/*.py``): ``measure(ctx)`` receives a ``ProbeContext``; the timing helpers
``paired_samples``, ``baseline_loop`` and ``dispatch_samples`` and the SIMD helpers
``isa_target``, ``ISA_LEVELS``, ``chosen_isa``, ``choose_accumulators``, ``analyse_asm`` and
``asm_warning`` (``engine.probing``, ``engine.simd``); ``build`` and ``assembly`` compile a
probe's own C (``engine.cbuild``); ``chain_library``, ``chain_call``, ``chain_instructions``
and ``chain_ghz`` are the dependent chains that measure the clock (``engine.chains``).

Names are resolved on first use, so a probe worker never imports cffi and a scenario never
imports the probe helpers.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "prepare": "overhead_tui.engine.cbuild",
    "matmul": "overhead_tui.engine.cbuild",
    "Unavailable": "overhead_tui.engine.cbuild",
    "ProbeContext": "overhead_tui.engine.probing",
    "paired_samples": "overhead_tui.engine.probing",
    "baseline_loop": "overhead_tui.engine.probing",
    "dispatch_samples": "overhead_tui.engine.probing",
    "isa_target": "overhead_tui.engine.probing",
    "usable_cpus": "overhead_tui.engine.probing",
    "build": "overhead_tui.engine.cbuild",
    "chain_library": "overhead_tui.engine.chains",
    "chain_instructions": "overhead_tui.engine.chains",
    "chain_ghz": "overhead_tui.engine.chains",
    "chain_call": "overhead_tui.engine.chains",
    "chosen_isa": "overhead_tui.engine.simd",
    "ISA_LEVELS": "overhead_tui.engine.simd",
    "assembly": "overhead_tui.engine.cbuild",
    "choose_accumulators": "overhead_tui.engine.probing",
    "analyse_asm": "overhead_tui.engine.probing",
    "asm_warning": "overhead_tui.engine.probing",
    "SimdTarget": "overhead_tui.engine.probing",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'overhead_tui.api' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
