"""The machine's limits next to each rung: theoretical and measured peaks, bandwidth, roofline.

* Theoretical peak: ``cpu.CpuModel.peak`` at the clock the cores run FMA code at (the
  ``simd_fma`` probe's ``vector_clock_ghz``: lower than the scalar clock on cores with
  frequency licences, e.g. 512-bit code on Intel Xeons), else the measured scalar clock (probe
  ``clock``), and at the nominal one.  The impossible-result bound uses the higher, scalar one.
* Measured compute peak: the best of the ``simd_fma`` probe (all cores), the ``dense_peak``
  probe (GEMM at n = 1536) and the dense kernels of this run at the same dtype; "% of peak"
  uses it (the theoretical one beside it).
* Bandwidth: the ``stream_triad`` probe, one core and all cores.
* Impossible results (:func:`reject_impossible`): a rung faster than :data:`IMPOSSIBLE_MARGIN` ×
  the theoretical peak (on the cores its worker used, at the measured clock) cannot have
  computed its product; it gets the status ``impossible`` and loses its speed.
* The environment (``environment.judge_environment``): a slow dense kernel and thread
  variables limiting all-threads rungs are warned about on the rung.
* ``limit_warnings``: readings that cannot all be right — all cores below one core (bandwidth,
  SIMD peak), a SIMD probe whose compiled code cannot reach the peak (``asm_warning``, or
  narrower vectors than the FMA units), and a ceiling below a rung measured on the same
  threads (a one-thread rung above the one-core SIMD peak, a parallel rung above the all-cores
  peak).
* Arithmetic intensity of an n × n matmul: 2n³ flops over the minimum traffic 3·n²·itemsize
  bytes (read A and B, write C once), i.e. 2n / (3·itemsize) flops per byte; the roofline
  ceiling is min(peak, intensity × bandwidth).
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from overhead_tui.machine.cgroup import cgroup_cpu_quota, effective_cores
from overhead_tui.machine.cpu import CpuModel
from overhead_tui.machine.environment import judge_environment
from overhead_tui.machine.facts import (
    expected_flop_per_cycle,
    fact_checks,
    fact_warnings,
    probe_load_warnings,
    scaling_warnings,
)
from overhead_tui.machine.precision import precision_peaks, precision_warnings
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.limits import MachineLimits, PeakEntry
from overhead_tui.summary.probes import Probes, probe_details, probe_value
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.units import fmt_gflops
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE, PRECISION_FAMILIES

CPUFREQ_MAX = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
ABOVE_THEORY = 1.05
"""A measured peak above 1.05 × the theoretical one is flagged (turbo, or a wrong clock)."""
IMPOSSIBLE_MARGIN = 1.1
"""A rung above 1.1 × the theoretical peak is ``impossible`` (the 10 % absorbs clock rounding)."""
CORES_USED_SLACK = 0.1
"""CPU over wall a one-thread worker reads above 1 (its runtime's threads): 1.1 is one, 1.2 two."""
UNMEASURED_CLOCK_FACTOR = 2.0
"""Without a measured clock (``--no-probes``, sweep points) and without a cpufreq maximum, the
bound assumes up to 2 × the nominal clock (turbo on a few cores rarely exceeds it)."""
ABOVE_CEILING = 1.05
"""A rung above 1.05 × a ceiling measured on the same threads is flagged (within it: noise)."""
DTYPE_PREFIX = {"float64": "", "float32": "float32_"}
"""Prefix of a dtype's keys in the ``simd_fma`` probe's details."""


def arithmetic_intensity(n: int, dtype: str, m: int | None = None, k: int | None = None) -> float:
    """Flops per byte of the minimum traffic of an n × n matmul: 2n³ / (3n²·itemsize); with
    ``m``/``k``, of A (m×k)·B (k×n): 2mkn / (itemsize·(mk + kn + mn))."""
    if m is None and k is None:
        return 2.0 * n / (3.0 * DTYPE_ITEMSIZE[dtype])
    m, k = (n if m is None else m), (n if k is None else k)
    return 2.0 * m * k * n / (DTYPE_ITEMSIZE[dtype] * (m * k + k * n + m * n))


MEASURED_PEAK_SOURCES: dict[str, tuple[tuple[str, str | None], ...]] = {
    "float64": (("simd_fma", None), ("dense_peak", None)),
    "float32": (("simd_fma", "float32_gflops"), ("dense_peak", "float32_gflops")),
}
"""Probe (name, detail) giving the all-cores compute peak per dtype (GFLOP/s)."""
ONE_CORE_PEAK: dict[str, tuple[str, str]] = {
    "float64": ("simd_fma", "one_core_gflops"),
    "float32": ("simd_fma", "float32_one_core_gflops"),
}


def _sources(dtype: str, scope: str = "all_cores") -> tuple[tuple[str, str | None], ...]:
    """Probe (name, detail) pairs measuring ``dtype``'s peak on all cores or one core."""
    if dtype in PRECISION_FAMILIES:
        return tuple(("precision_peak", f"{f}_{scope}") for f in PRECISION_FAMILIES[dtype])
    if scope == "one_core":
        return (ONE_CORE_PEAK[dtype],)
    return MEASURED_PEAK_SOURCES[dtype]


def simd_probe_narrow(probes: Probes, cpu: CpuModel | None) -> int | None:
    """The ``simd_fma`` probe's code width (bits) when it is narrower than the CPU's FMA
    units (then its figure is not the SIMD roof: it is a peak of narrower code), else None."""
    width = (getattr(probes.get("simd_fma"), "details", None) or {}).get("simd_width_bits")
    if cpu is not None and isinstance(width, int) and 0 < width < cpu.fma_width_bits:
        return width
    return None


def vector_clock(probes: Probes, cpu: CpuModel | None) -> float | None:
    """The clock under FMA load as wide as the FMA units (``simd_fma``'s ``vector_clock_ghz``,
    GHz), or None: not measured (ARM, older probes) or measured with narrower code."""
    if simd_probe_narrow(probes, cpu):
        return None
    return probe_value(probes, "simd_fma", "vector_clock_ghz")


def measured_peak(
    dtype: str, probes: Probes, summary: RunSummary | None = None, cpu: CpuModel | None = None
) -> tuple[float | None, str | None]:
    """(best measured GFLOP/s, what measured it) for ``dtype``: probes, the run's dense kernels.

    The ``simd_fma`` probe counts only when its code is as wide as the FMA units
    (:func:`simd_probe_narrow`)."""
    narrow = simd_probe_narrow(probes, cpu)
    candidates = [
        (value, name)
        for name, detail in _sources(dtype)
        if (value := probe_value(probes, name, detail)) and not (narrow and name == "simd_fma")
    ]
    if summary is not None and summary.settings.dtype == dtype:
        candidates += [
            (r.gflops, r.name)
            for r in summary.scenarios
            if r.has_speed and r.gflops and "dense_kernel" in r.layers
        ]
    return max(candidates, default=(None, None))


def _peak_entry(
    dtype: str,
    cpu: CpuModel | None,
    cores: float | None,
    clock: dict[str, float | None],
    probes: Probes,
    summary: RunSummary | None,
) -> PeakEntry:
    entry: dict[str, float | str | None] = {}
    fma_clock = clock.get("vector") or clock["measured"]
    if cpu is not None:
        at = fma_clock or cpu.nominal_ghz
        entry["theoretical"], entry["formula"] = cpu.peak(dtype, at, cores)
        if clock.get("vector"):
            entry["formula"] = f"{entry['formula']} (clock under {cpu.fma_width_bits}-bit FMA load)"
        entry["theoretical_nominal"], entry["formula_nominal"] = cpu.peak(
            dtype, cpu.nominal_ghz, cores
        )
        entry["flop_per_cycle_per_core"] = cpu.flop_per_cycle(dtype)
    measured, entry["measured_by"] = measured_peak(dtype, probes, summary, cpu)
    ones = [x for s in _sources(dtype, "one_core") if (x := probe_value(probes, *s))]
    low_precision = dtype in PRECISION_FAMILIES
    one_core = (
        max(ones, default=None) if low_precision or not simd_probe_narrow(probes, cpu) else None
    )
    entry["measured"], entry["one_core"] = measured, one_core
    if cpu is not None and fma_clock:
        one_theory = cpu.flop_per_cycle(dtype) * fma_clock
        entry["one_core_theoretical"] = one_theory
        if one_core:
            entry["one_core_ratio"] = one_core / one_theory
    theory = entry.get("theoretical")
    if measured and isinstance(theory, float | int) and theory:
        entry["ratio"] = measured / theory
        if measured > ABOVE_THEORY * theory:
            entry["warning"] = (
                "measured above the theoretical peak: the clock used is too "
                "low (turbo?) or the FMA table row is wrong"
            )
    return from_json(PeakEntry, entry)


def machine_limits(
    cpu: CpuModel | None, probes: Probes, summary: RunSummary | None = None
) -> MachineLimits:
    """The machine's model and limits (its CPU fields None for an unknown CPU).

    The theoretical peak counts min(physical cores, effective cores) cores: an affinity mask
    or a cgroup quota caps what this process can reach.
    """
    quota = cgroup_cpu_quota()
    effective = effective_cores(quota)
    clock = {
        "nominal": cpu.nominal_ghz if cpu else None,
        "max": max_clock_ghz(),
        "measured": probe_value(probes, "clock"),
        "vector": vector_clock(probes, cpu),
    }
    if clock["vector"]:  # the scalar clock timed beside it: the licence gap of that moment
        clock["vector_scalar"] = probe_value(probes, "simd_fma", "scalar_clock_ghz")
    bandwidth = {
        "one_core": probe_value(probes, "stream_triad", "one_thread_gbs"),
        "all_cores": probe_value(probes, "stream_triad"),
    }
    cores = min(cpu.physical_cores or cpu.logical_cpus or 1, effective) if cpu else None
    dtypes = ["float64", "float32"]
    run = [summary.settings.dtype, *(r.dtype for r in summary.scenarios)] if summary else []
    dtypes += [d for d in dict.fromkeys(run) if d not in dtypes]  # a lower precision's: its rungs
    peaks = {dtype: _peak_entry(dtype, cpu, cores, clock, probes, summary) for dtype in dtypes}
    checks = fact_checks(cpu, probes, cores)
    lower = precision_peaks(cpu, probes)
    warnings = fact_warnings(checks) + bandwidth_warnings(bandwidth)
    warnings += simd_peak_warnings(probes, cpu) + probe_load_warnings(probes)
    if summary is None or summary.settings.dtype in PRECISION_FAMILIES:
        # a lower precision's doubts matter to its own runs and to `machine`, not under every
        # float64 ladder (its table still shows the ratio)
        warnings += precision_warnings(lower)
    if summary is not None:
        warnings += ceiling_warnings(peaks, summary) + scaling_warnings(checks, summary)
    limits = MachineLimits(
        effective_cores=effective,
        cgroup_cpu_quota=quota,
        clock_ghz=clock,
        bandwidth_gbs=bandwidth,
        packing_gbs=probe_value(probes, "stream_triad", "pack_one_thread_gbs"),
        peak_gflops=peaks,
        limit_warnings=warnings,
        fact_checks=checks,
        precision_peaks=lower,
    )
    if cpu is None:
        return limits
    return replace(
        limits,
        physical_cores=cpu.physical_cores,
        microarchitecture=cpu.microarchitecture,
        table_source=cpu.source,
        isa=cpu.isa,
        simd_width_bits=cpu.simd_width_bits,
        fma_units=cpu.fma_units,
        fma_width_bits=cpu.fma_width_bits,
    )


ALL_BELOW_ONE = 0.95
"""An all-cores figure is implausible below this fraction of one core's.  Where the run may use
one CPU (``taskset -c 0``) both measure the same thing, and two such measurements differed by
up to 3 % (STREAM triad 30.6 against 31.5 GB/s, SIMD peak 58.3 against 58.3 GFLOP/s; a 2-vCPU
Zen 4, 2026-12-06): a shortfall within that is the measurement's own spread."""


def bandwidth_warnings(bandwidth: dict[str, float | None]) -> list[str]:
    """Implausible bandwidth readings: all cores below one core means a disturbed measurement."""
    one, every = bandwidth.get("one_core"), bandwidth.get("all_cores")
    if one and every and every < one * ALL_BELOW_ONE:
        return [
            f"all-core bandwidth ({every:.3g} GB/s) is below one core's ({one:.3g} GB/s): "
            "other load disturbed the measurement; the roofline uses the higher one; "
            "re-measure with `overhead-tui probes --refresh`"
        ]
    return []


def simd_peak_warnings(probes: Probes, cpu: CpuModel | None = None) -> list[str]:
    """Doubts about the ``simd_fma`` probe per dtype: all cores below one core, and compiled
    code that cannot reach the peak (its ``asm_warning``, or vectors narrower than the FMAs:
    then what the narrower code reached of its own peak)."""
    details = probe_details(probes, "simd_fma")
    warnings = []
    for dtype, prefix in DTYPE_PREFIX.items():
        every = probe_value(probes, *MEASURED_PEAK_SOURCES[dtype][0])
        one = probe_value(probes, *ONE_CORE_PEAK[dtype])
        if one and every and every < one * ALL_BELOW_ONE:
            warnings.append(
                f"{dtype} SIMD peak on all cores ({every:.3g} GFLOP/s) is below one core's "
                f"({one:.3g} GFLOP/s): other load disturbed the all-cores run; re-measure "
                "with `overhead-tui probes --refresh`"
            )
        if isinstance(asm := details.get(f"{prefix}asm_warning"), str):
            warnings.append(
                f"{dtype} SIMD peak probe ({details.get('isa', '?')} code): {asm}; it "
                "measures less than the peak"
            )
    width = simd_probe_narrow(probes, cpu)
    if cpu is not None and width:
        warnings.append(
            f"the SIMD peak probe ran {width}-bit code ({details.get('isa', '?')}, chosen by "
            f"{details.get('target_from', '?')}) on {cpu.fma_width_bits}-bit FMA units: "
            f"at most {width / cpu.fma_width_bits:.2g} of the theoretical peak, so it is not "
            "used as the SIMD roof" + _narrow_code_ratios(probes, cpu, width)
        )
    return warnings


def _narrow_code_ratios(probes: Probes, cpu: CpuModel, width: int) -> str:
    """What narrower code reached of its own peak (``width`` bits on the CPU's FMA units at the
    clock under that code's load, else the scalar clock), one core and all cores, per dtype:
    "; it reached 1.00 × that on one core and 0.99 × on all 2 (float64), 0.99 × and …"."""
    clock = probe_value(probes, "simd_fma", "vector_clock_ghz") or probe_value(probes, "clock")
    cores = cpu.physical_cores or cpu.logical_cpus or 1
    parts: list[str] = []
    for dtype, (name, detail) in ONE_CORE_PEAK.items():
        one = probe_value(probes, name, detail)
        if not (one and clock):
            continue
        own = expected_flop_per_cycle(cpu, width, dtype) * clock
        every = probe_value(probes, *MEASURED_PEAK_SOURCES[dtype][0])
        first = not parts
        text = f"{one / own:.2f} ×" + (" that on one core" if first else "")
        if every:
            text += f" and {every / (own * cores):.2f} ×" + (f" on all {cores}" if first else "")
        parts.append(f"{text} ({dtype})")
    return "; it reached " + ", ".join(parts) if parts else ""


def ceiling_warnings(peaks: dict[str, PeakEntry], summary: RunSummary) -> list[str]:
    """Ceilings below a rung measured on the same threads (beyond :data:`ABOVE_CEILING`).

    A rung without the ``parallel`` layer runs on one thread: it cannot beat the one-core SIMD
    peak; a parallel rung cannot beat the all-cores peak.  Either means the ceiling was
    measured low (a disturbed probe, or code that misses the hardware).
    """
    peak = peaks.get(summary.settings.dtype) or PeakEntry()
    one_thread = {r.name for r in summary.scenarios if "parallel" not in r.layers}
    warnings = []
    for result in summary.scenarios:
        if not result.has_speed or not result.gflops or result.dtype != summary.settings.dtype:
            continue
        if "parallel" in result.layers and peak.measured_by in one_thread:
            continue  # an all-cores "peak" that is a one-thread rung's speed bounds nothing
        if "parallel" in result.layers:
            threads, name, ceiling = "all threads", "all-cores peak", peak.measured
        else:
            threads, name, ceiling = "one thread", "one-core SIMD peak", peak.one_core
        if ceiling and result.gflops > ABOVE_CEILING * ceiling:
            fix = (
                "re-measure with `overhead-tui probes --refresh`"
                if summary.probes
                else "run with the probes (without --no-probes) to measure it"
            )
            warnings.append(
                f"{result.name} ({threads}) runs at {result.gflops:.3g} GFLOP/s, above the "
                f"{name} ({ceiling:.3g} GFLOP/s): that ceiling was measured low (a disturbed "
                f"probe, or its code misses the hardware); {fix}"
            )
    return warnings


def roofline_bandwidth(bandwidth: dict[str, float | None]) -> float | None:
    """The bandwidth ceiling (GB/s): the best of the one-core and all-core STREAM triads."""
    return max((v for v in bandwidth.values() if v), default=None)


def max_clock_ghz(path: Path = CPUFREQ_MAX) -> float | None:
    """The maximum clock the kernel reports (cpufreq ``cpuinfo_max_freq``, kHz → GHz), or None.

    Virtual machines usually expose no cpufreq directory: None there.
    """
    try:
        return int(path.read_text(encoding="ascii").strip()) / 1e6
    except (OSError, ValueError):
        return None


def apply_limits(summary: RunSummary, cpu: CpuModel | None) -> None:
    """Store the limits in ``summary.machine``, each ok rung's roofline figures and the
    environment's warnings (``environment.judge_environment``)."""
    limits = machine_limits(cpu, summary.probes, summary)
    summary.machine.set_limits(limits)
    bandwidth = roofline_bandwidth(limits.bandwidth_gbs)
    for result in summary.scenarios:  # each at its own dtype's peak (an engine rung's own)
        peak = (limits.peak_gflops.get(result.dtype) or PeakEntry()).measured
        _roofline(result, peak, bandwidth)
    theoretical = {d: p.theoretical for d, p in limits.peak_gflops.items()}
    judge_environment(summary.scenarios, summary.machine, theoretical)


def speed_bound(
    cpu: CpuModel | None, probes: Probes, dtype: str, cores_used: int | None = None
) -> tuple[float | None, str]:
    """(the theoretical peak no rung can beat (GFLOP/s), how it was computed) or (None, why not).

    All physical cores (affinity and cgroup quota ignored: a bound, not an expectation) at the
    measured clock (probe ``clock``); without one, the cpufreq maximum, else
    :data:`UNMEASURED_CLOCK_FACTOR` × the nominal clock.  With ``cores_used`` below all
    (:func:`cores_used`), that many at the highest of those clocks (one core may boost above
    all cores' clock).  None for an unknown CPU or one without any clock: no check."""
    if cpu is None:
        return None, "no CPU model (no /proc/cpuinfo): impossible results are not detected"
    cores = cpu.physical_cores or cpu.logical_cpus or 1
    nominal = cpu.nominal_ghz * UNMEASURED_CLOCK_FACTOR if cpu.nominal_ghz else None
    clocks = [
        (probe_value(probes, "clock"), "measured clock"),
        (max_clock_ghz(), "maximum clock (cpufreq)"),
        (nominal, f"{UNMEASURED_CLOCK_FACTOR:g} × the nominal clock"),
    ]
    known = [(ghz, basis) for ghz, basis in clocks if ghz]
    if not known:
        return None, "no clock known: impossible results are not detected"
    if cores_used and cores_used < cores:
        cores = cores_used
        ghz, basis = max(known)
        basis += ", the highest clock known (one core may boost above all cores' clock)"
    else:
        ghz, basis = known[0]
        basis += "" if basis == "measured clock" else "; none measured"
    peak, formula = cpu.peak(dtype, ghz, cores)
    return peak, f"{formula.rsplit(' = ', 1)[0]}, {basis}"


def cores_used(result: ScenarioResult) -> int | None:
    """The whole cores a rung's worker could have computed on: its busiest sample's CPU
    seconds over wall seconds (``sample_cores``, which counts spinning threads too), rounded
    up past :data:`CORES_USED_SLACK`; None without samples (the bound then counts all)."""
    if not result.sample_cores:
        return None
    return max(1, math.ceil(max(result.sample_cores) - CORES_USED_SLACK))


def reject_impossible(summary: RunSummary, cpu: CpuModel | None) -> list[str]:
    """Mark every ok rung faster than :data:`IMPOSSIBLE_MARGIN` × :func:`speed_bound` as
    ``impossible``: its reason names both speeds, its speed is cleared (samples kept).

    Run it before × dense, breakdowns and limits, so none of them uses such a rung.  Returns
    the names of the rungs it marked.
    """
    marked = []
    bounds: dict[tuple[str, int | None], tuple[float | None, str]] = {}  # per dtype, cores
    for result in summary.scenarios:
        if not result.has_speed or not result.gflops:
            continue
        key = (result.dtype, cores_used(result))
        bound, how = bounds[key] = bounds.get(key) or speed_bound(cpu, summary.probes, *key)
        if bound is None or result.gflops <= IMPOSSIBLE_MARGIN * bound:
            continue
        result.status = "impossible"
        result.error = (
            f"faster than the hardware can compute ({fmt_gflops(result.gflops)} GFLOP/s > "
            f"theoretical peak {fmt_gflops(bound)} = {how}): the result may be cached or "
            "not computed"
        )
        result.clear_speed()
        result.warnings = []  # timing-stability notes mean nothing without a speed
        marked.append(result.name)
    return marked


def _roofline(result: ScenarioResult, peak: float | None, bandwidth: float | None) -> None:
    result.arithmetic_intensity = arithmetic_intensity(result.n, result.dtype, result.m, result.k)
    if not result.has_speed or result.gflops is None:
        result.pct_peak = None
        return
    result.pct_peak = result.gflops / peak if peak else None
    if peak and bandwidth:
        ceiling = min(peak, result.arithmetic_intensity * bandwidth)
        result.roofline_ceiling_gflops = ceiling
