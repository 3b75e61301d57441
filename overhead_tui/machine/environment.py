"""The environment that changes results: recorded in the machine facts, judged per rung.

Variables that steer BLAS, OpenMP, numba and MKL threads or kernels (``OPENBLAS_*``, ``OMP_*``,
``MKL_*``, ``NUMBA_*``, ``GOTO*``, ``BLIS_*``) are recorded as the workers inherit them
(:func:`steering_environment`).  Two judgements become warnings next to the number (a rung's
``warnings``, ``!`` in the ladder, the report's notes):

* **A slow dense kernel** (:func:`dense_kernel_warning`): below half of the *theoretical* peak
  at the measured clock (never of a measured peak, which may have run through the same
  degraded BLAS), at n ≥ :data:`DENSE_JUDGE_MIN_N`.  The warning names the likely cause: a BLAS
  kernel older than the machine's SIMD (``OPENBLAS_CORETYPE=Prescott`` on an AVX2 machine),
  fewer BLAS threads than cores, or a thread variable that is set.
* **A thread variable limiting an all-threads rung** (:func:`thread_limit_warnings`): a rung
  with the ``parallel`` layer promises every core; ``OPENBLAS_NUM_THREADS=1`` and the like turn
  it into a one-thread rung.

Pure functions on a :class:`~overhead_tui.summary.records.RunSummary`; no processes, no UI.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from overhead_tui.machine.load import OTHERS_WARN
from overhead_tui.summary.records import MachineInfo, ScenarioResult
from overhead_tui.summary.units import fmt_gflops, fmt_percent

STEERING_PREFIXES: tuple[str, ...] = ("OPENBLAS_", "OMP_", "MKL_", "NUMBA_", "GOTO", "BLIS_")
"""Name prefixes of the variables recorded in ``machine.environment``."""

BLAS_THREAD_VARIABLES: tuple[str, ...] = (
    "OPENBLAS_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
)
"""Variables that size a BLAS thread pool (OpenBLAS falls back to ``OMP_NUM_THREADS``)."""
NUMBA_THREAD_VARIABLES: tuple[str, ...] = ("NUMBA_NUM_THREADS",)
"""Variables that size numba's thread pool."""
OTHER_THREAD_VARIABLES: tuple[str, ...] = ("OMP_NUM_THREADS",)
"""Variables that size any other parallel runtime (OpenMP in a C rung)."""

DENSE_FRACTION_WARN = 0.5
"""A dense kernel below this fraction of the theoretical peak is warned about."""
DENSE_JUDGE_MIN_N = 256
"""Smallest n at which a slow dense kernel is judged: below it a GEMM call is dominated by
call and threading overhead, so a speed far below the peak is normal."""
JUDGED_PREFIXES: tuple[str, ...] = ("below half of the theoretical peak", "thread limit: ")
"""How the warnings of this module start (they are recomputed, never duplicated)."""

_SIMD_LEVEL = {"sse": 1, "avx": 2, "avx2": 3, "avx512": 4}
_SIMD_LABEL = {"sse": "SSE", "avx": "AVX", "avx2": "AVX2", "avx512": "AVX-512"}
OPENBLAS_KERNEL_SIMD: dict[str, str] = {
    **dict.fromkeys(
        (
            "katmai",
            "coppermine",
            "northwood",
            "prescott",
            "banias",
            "core2",
            "penryn",
            "dunnington",
            "nehalem",
            "atom",
            "athlon",
            "opteron",
            "opteron_sse3",
            "barcelona",
            "bobcat",
            "nano",
        ),
        "sse",
    ),
    **dict.fromkeys(("sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"), "avx"),
    **dict.fromkeys(("haswell", "zen"), "avx2"),
    **dict.fromkeys(("skylakex", "cooperlake", "sapphirerapids"), "avx512"),
}
"""OpenBLAS x86 kernel (threadpoolctl ``architecture``, lower case) → the widest SIMD it uses."""


def steering_environment(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` that steer BLAS, OpenMP, numba or MKL, sorted by name."""
    return {k: env[k] for k in sorted(env) if k.startswith(STEERING_PREFIXES)}


def machine_simd(isa: list[str]) -> str | None:
    """The widest SIMD family of a CPU's ISA flags: ``avx512``, ``avx2``, ``avx``, ``sse``."""
    if "avx512f" in isa:
        return "avx512"
    if "avx2" in isa and "fma" in isa:
        return "avx2"
    if "avx" in isa:
        return "avx"
    return "sse" if "sse2" in isa else None


def cores_available(machine: MachineInfo) -> int:
    """Whole cores this run may use: floor(effective cores), else the affinity CPUs (≥ 1)."""
    if machine.effective_cores:
        return max(1, math.floor(machine.effective_cores + 1e-9))
    return max(1, machine.effective_cpus or machine.logical_cpus or 1)


def thread_variable(environment: Mapping[str, str], name: str) -> int | None:
    """The thread count a variable sets (``OMP_NUM_THREADS=4,2`` → 4), or None."""
    value = environment.get(name, "").split(",")[0].strip()
    return int(value) if value.isdigit() and int(value) > 0 else None


def slow_kernel_causes(result: ScenarioResult, machine: MachineInfo) -> list[str]:
    """Why a BLAS rung may run below the machine's peak, from recorded facts (most likely
    first): a kernel older than the CPU's SIMD, ``OPENBLAS_CORETYPE``, fewer BLAS threads than
    cores, a thread variable."""
    env = machine.environment
    causes: list[str] = []
    native = machine_simd(machine.isa)
    for lib in result.blas or []:
        kernel = lib.architecture or ""
        simd = OPENBLAS_KERNEL_SIMD.get(kernel.lower())
        older = simd and native and _SIMD_LEVEL[simd] < _SIMD_LEVEL[native]
        if lib.library == "openblas" and older and simd and native:
            causes.append(
                f"BLAS kernel {kernel} ({_SIMD_LABEL[simd]}) on this {_SIMD_LABEL[native]} machine"
            )
    if "OPENBLAS_CORETYPE" in env:
        causes.append(f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']} is set")
    cores = cores_available(machine)
    threads = result.blas_threads
    if threads is not None and threads < cores:
        causes.append(f"the BLAS ran on {threads} thread(s) where {cores} cores are available")
    for name in BLAS_THREAD_VARIABLES:
        if name in env:
            causes.append(f"{name}={env[name]} is set")
    others = result.other_cpu_fraction
    if others is not None and others > OTHERS_WARN:  # a second run, a build, a neighbour
        causes.append(f"other processes used {others:.0%} of the CPUs while it ran")
    got = [x for x in (result.sample_thread_cores or []) if x > 0]
    if got and cores and sorted(got)[len(got) // 2] < 0.8 * cores <= (threads or cores):
        causes.append(
            f"its threads got {sorted(got)[len(got) // 2]:.2f} of {cores} cores while timed"
        )
    return causes


def dense_kernel_warning(
    result: ScenarioResult, machine: MachineInfo, theoretical: float | None
) -> str | None:
    """A warning when the dense kernel reaches under half of the theoretical peak, or None.

    Args:
        result: a rung; only the dense kernel with a speed at n ≥ ``DENSE_JUDGE_MIN_N`` counts.
        machine: the machine facts (``environment``, ``isa``, cores).
        theoretical: the theoretical peak of ``result.dtype`` at the measured clock (GFLOP/s).
    """
    if not (result.dense_kernel and result.has_speed and result.gflops and theoretical):
        return None
    if result.n < DENSE_JUDGE_MIN_N or result.gflops >= DENSE_FRACTION_WARN * theoretical:
        return None
    causes = slow_kernel_causes(result, machine)
    why = (
        "likely cause: " + "; ".join(causes)
        if causes
        else f"no cause found in the environment (n = {result.n} may be too small for "
        f"{cores_available(machine)} cores, or other load)"
    )
    return (
        f"below half of the theoretical peak: the dense kernel reaches "
        f"{fmt_percent(result.gflops / theoretical)} of it ({fmt_gflops(result.gflops)} of "
        f"{fmt_gflops(theoretical)} GFLOP/s); {why}"
    )


def thread_limit_warnings(result: ScenarioResult, machine: MachineInfo) -> list[str]:
    """Warnings for a thread variable that limits an all-threads (``parallel``) rung.

    The variables that apply depend on the rung: a BLAS rung (``dense_kernel`` layer) obeys
    the BLAS ones, a numba rung ``NUMBA_NUM_THREADS``, any other ``OMP_NUM_THREADS``.  When
    the worker reported the rung's thread count (BLAS or numba) and it reaches every core,
    the variable did not limit it and nothing is said.
    """
    if "parallel" not in result.layers or not result.has_speed:
        return []
    cores = cores_available(machine)
    if "dense_kernel" in result.layers:
        names, seen = BLAS_THREAD_VARIABLES, result.blas_threads
    elif result.numba_threads is not None:
        names, seen = NUMBA_THREAD_VARIABLES, result.numba_threads
    else:
        names, seen = OTHER_THREAD_VARIABLES, None
    if seen is not None and seen >= cores:
        return []
    warnings = []
    for name in names:
        value = thread_variable(machine.environment, name)
        if value is not None and value < cores:
            threads = seen if seen is not None else value
            warnings.append(
                f"thread limit: {name}={machine.environment[name]} is set, so this all-threads "
                f"rung ran on {threads} thread(s) of {cores} cores; unset it to use every core"
            )
    return warnings


def judge_environment(
    results: list[ScenarioResult], machine: MachineInfo, theoretical: Mapping[str, float | None]
) -> None:
    """Replace each rung's warnings from this module by fresh ones (idempotent).

    Args:
        results: the run's rungs.
        machine: the machine facts.
        theoretical: {dtype: theoretical peak at the measured clock (GFLOP/s) or None}.
    """
    for result in results:
        kept = [w for w in result.warnings if not w.startswith(JUDGED_PREFIXES)]
        dense = dense_kernel_warning(result, machine, theoretical.get(result.dtype))
        result.warnings = kept + ([dense] if dense else []) + thread_limit_warnings(result, machine)
