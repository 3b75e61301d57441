"""The machine's limits next to each rung: theoretical and measured peaks, bandwidth, roofline.

* Theoretical peak: ``cpu.CpuModel.peak`` at the measured clock (probe ``clock``) and at the
  nominal one.
* Measured compute peak: the best of the ``simd_fma`` probe (all cores) and the dense
  kernels of this run at the same dtype; "% of peak" uses it (the theoretical one beside it).
* Bandwidth: the ``stream_triad`` probe, one core and all cores.
* Arithmetic intensity of an n × n matmul: 2n³ flops over the minimum traffic 3·n²·itemsize
  bytes (read A and B, write C once), i.e. 2n / (3·itemsize) flops per byte; the roofline
  ceiling is min(peak, intensity × bandwidth).
"""

from __future__ import annotations

from typing import Any

from overhead_tui.cpu import CpuModel
from overhead_tui.engine.inputs import DTYPE_ITEMSIZE
from overhead_tui.model import RunSummary, ScenarioResult

ABOVE_THEORY = 1.05
"""A measured peak above 1.05 × the theoretical one is flagged (turbo, or a wrong clock)."""


def arithmetic_intensity(n: int, dtype: str) -> float:
    """Flops per byte of the minimum traffic of an n × n matmul: 2n³ / (3n²·itemsize)."""
    return 2.0 * n / (3.0 * DTYPE_ITEMSIZE[dtype])


def _probe(probes: dict[str, Any], name: str, detail: str | None = None) -> float | None:
    probe = probes.get(name) or {}
    value = (probe.get("details") or {}).get(detail) if detail else probe.get("value")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def machine_limits(
    cpu: CpuModel | None, probes: dict[str, Any], summary: RunSummary | None = None
) -> dict[str, Any]:
    """Clock, theoretical and measured peaks per dtype, and bandwidth (the summary's keys)."""
    measured_ghz = _probe(probes, "clock")
    limits: dict[str, Any] = {
        "clock_ghz": {"nominal": cpu.nominal_ghz if cpu else None, "measured": measured_ghz},
        "bandwidth_gbs": {
            "one_core": _probe(probes, "stream_triad", "one_thread_gbs"),
            "all_cores": _probe(probes, "stream_triad"),
        },
        "peak_gflops": {},
    }
    if cpu is not None:
        limits.update(
            microarchitecture=cpu.microarchitecture,
            isa=cpu.isa,
            simd_width_bits=cpu.simd_width_bits,
            fma_units=cpu.fma_units,
            fma_width_bits=cpu.fma_width_bits,
            physical_cores=cpu.physical_cores,
            table_source=cpu.source,
        )
    for dtype in ("float64", "float32"):
        entry: dict[str, Any] = {}
        if cpu is not None:
            clock = measured_ghz or cpu.nominal_ghz
            entry["theoretical"], entry["formula"] = cpu.peak(dtype, clock)
            entry["theoretical_nominal"], entry["formula_nominal"] = cpu.peak(
                dtype, cpu.nominal_ghz
            )
        measured = [x for x in (_probe(probes, "simd_fma") if dtype == "float64" else None,) if x]
        if summary is not None and summary.settings.dtype == dtype:
            measured += [
                r.gflops
                for r in summary.scenarios
                if r.has_speed and r.gflops and "dense_kernel" in r.layers
            ]
        entry["measured"] = max(measured, default=None)
        theory = entry.get("theoretical")
        if entry["measured"] and theory and entry["measured"] > ABOVE_THEORY * theory:
            entry["warning"] = (
                "measured above the theoretical peak: the clock used is too "
                "low (turbo?) or the FMA table row is wrong"
            )
        limits["peak_gflops"][dtype] = entry
    return limits


def apply_limits(summary: RunSummary, cpu: CpuModel | None) -> None:
    """Store the limits in ``summary.machine.limits`` and each ok rung's roofline figures."""
    limits = machine_limits(cpu, summary.probes, summary)
    summary.machine.limits = limits
    peak = limits["peak_gflops"].get(summary.settings.dtype, {}).get("measured")
    bandwidth = limits["bandwidth_gbs"]["all_cores"]
    for result in summary.scenarios:
        _roofline(result, peak, bandwidth)


def _roofline(result: ScenarioResult, peak: float | None, bandwidth: float | None) -> None:
    result.arithmetic_intensity = arithmetic_intensity(result.n, result.dtype)
    if not result.has_speed or result.gflops is None:
        result.pct_peak = None
        return
    result.pct_peak = result.gflops / peak if peak else None
    if peak and bandwidth:
        ceiling = min(peak, result.arithmetic_intensity * bandwidth)
        result.roofline_ceiling_gflops = ceiling
