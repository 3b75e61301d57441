"""The roofline of a run: compute ceilings, the bandwidth ceiling and one point per ok rung.

Williams, Waterman & Patterson, "Roofline: an insightful visual performance model for
multicore architectures", CACM 52(4), 2009.  Attainable GFLOP/s at arithmetic intensity I
(flops/byte) is min(compute ceiling, I × bandwidth).  Ceilings come from the summary's
measured limits and probes (never typed in):

* ``scalar latency``: the ``scalar_fma`` probe, one dependent multiply-add chain on one core
  (float64 only).  It bounds a loop whose every FMA waits for the previous one; scalar code
  with independent operations (or separate multiply and add) can run above it;
* ``SIMD one core, measured``: the ``simd_fma`` probe on one core (this dtype), only when its
  code was as wide as the FMA units (``limits.simd_probe_narrow``);
* ``all cores, measured``: the measured compute peak of this dtype (``machine.peak_gflops``);
* ``one core, theoretical`` and ``all cores, theoretical``: the CPU model's FLOP/cycle × the
  measured clock (× the cores), drawn for reference; attainable figures use measured roofs;
* one roof per lower-precision instruction family the ``precision_peak`` probe measured
  (AVX-512 BF16/FP16/VNNI, AMX BF16/INT8; all cores, GFLOP/s or GOP/s): "the ceiling an order
  of magnitude higher" of the matrix engines.  They bound rungs of their own dtype only; on
  another dtype's roofline they are drawn for reference (``dtype`` set), never attainable;
* ``memory``: the STREAM triad bandwidth of all cores (GB/s).

A rung's intensity is that of its minimum traffic, 2n³ / (3n²·itemsize) (``limits``): real
kernels move more, so a point under the bandwidth line can still be memory-bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from overhead_tui.machine.limits import arithmetic_intensity, roofline_bandwidth
from overhead_tui.summary.limits import PeakEntry
from overhead_tui.summary.probes import probe_value
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.vocabulary import FAMILY_DTYPES


@dataclass(frozen=True)
class Ceiling:
    """A horizontal compute ceiling (GFLOP/s) and what measured it."""

    label: str
    gflops: float
    measured_by: str
    theoretical: bool = False
    """From the CPU model and the clock, not measured: drawn, never used as attainable."""
    dtype: str = ""
    """The dtype of a roof of another precision than the run's (drawn for reference, never
    attainable); "" for the run's own dtype."""

    @property
    def bounds_the_run(self) -> bool:
        """Measured and of the run's dtype: usable as an attainable roof."""
        return not self.theoretical and not self.dtype


@dataclass(frozen=True)
class RooflinePoint:
    """One ok rung: intensity (flops/byte), achieved and attainable GFLOP/s."""

    rung: int
    name: str
    n: int
    intensity: float
    gflops: float
    attainable: float | None
    """min(peak, intensity × bandwidth) (GFLOP/s) on the rung's threads: one core's measured
    peak and bandwidth for a rung without the ``parallel`` layer, all cores' for the others;
    None without peak or bandwidth."""
    bound: str
    """``compute`` or ``memory``: which roof is lower at this intensity ("" when unknown)."""

    @property
    def of_attainable(self) -> float | None:
        """Achieved / attainable (a fraction)."""
        return self.gflops / self.attainable if self.attainable else None


@dataclass(frozen=True)
class Roofline:
    """Everything the Roofline screen and the Markdown table show."""

    dtype: str
    ceilings: list[Ceiling]
    bandwidth_gbs: float | None
    points: list[RooflinePoint]
    trajectories: dict[str, list[tuple[int, float, float]]] = field(default_factory=dict)
    """A batch sweep's points per scenario (``overhead-tui shapes``): (m, intensity in
    flop/byte, GFLOP/s) of its ok points, by growing batch m: the path from GEMV to GEMM."""

    @property
    def peak(self) -> float | None:
        """The highest measured compute ceiling (GFLOP/s)."""
        return max((c.gflops for c in self.ceilings if c.bounds_the_run), default=None)

    @property
    def ridge_point(self) -> float | None:
        """Intensity where the bandwidth line meets the peak: peak / bandwidth (flops/byte)."""
        return ridge_point(self.peak, self.bandwidth_gbs)


def ridge_point(peak_gflops: float | None, bandwidth_gbs: float | None) -> float | None:
    """peak / bandwidth (flops/byte): below it a kernel is memory-bound, above compute-bound."""
    if not peak_gflops or not bandwidth_gbs:
        return None
    return peak_gflops / bandwidth_gbs


def _clock_text(summary: RunSummary) -> str:
    """The clock a theoretical roof is computed at, as the peaks compute it
    (``machine.limits``: under FMA load where measured, else the scalar clock), in words."""
    clock = summary.machine.clock_ghz
    if vector := clock.get("vector"):
        return f"{vector:.2f} GHz (clock under FMA load)"
    if measured := clock.get("measured"):
        return f"{measured:.2f} GHz (scalar clock)"
    return "clock"


def ceilings(summary: RunSummary) -> list[Ceiling]:
    """The compute ceilings of the run's dtype, lowest first (missing measurements skipped)."""
    dtype = summary.settings.dtype
    peak = summary.machine.peak_gflops.get(dtype) or PeakEntry()
    found = []
    scalar = probe_value(summary.probes, "scalar_fma")
    if scalar and dtype == "float64":  # the probe's chain is float64
        found.append(
            Ceiling("scalar latency (one dependent FMA chain)", scalar, "scalar_fma probe")
        )
    if peak.one_core:
        if peak.measured_by == "precision_peak":  # a lower precision: its best family's
            best = _best_family(summary, peak.one_core)
            label = f"{FAMILY_LABELS.get(best, best or 'best family')} one core, measured"
            found.append(Ceiling(label, float(peak.one_core), "precision_peak probe"))
        else:
            found.append(Ceiling("SIMD one core, measured", float(peak.one_core), "simd_fma probe"))
    if peak.measured:
        found.append(Ceiling("all cores, measured", float(peak.measured), peak.measured_by or ""))
    if peak.one_core_theoretical:
        per = peak.flop_per_cycle_per_core
        how = f"{per:g} FLOP/cycle × {_clock_text(summary)}" if per else "CPU model × clock"
        found.append(Ceiling("one core, theoretical", peak.one_core_theoretical, how, True))
    if peak.theoretical and peak.theoretical > 1.01 * (peak.one_core_theoretical or 0):
        found.append(Ceiling("all cores, theoretical", peak.theoretical, "CPU model", True))
    for family in summary.machine.precision_peaks:
        own = FAMILY_DTYPES.get(family.family, "")
        if family.all_cores:
            label = f"{FAMILY_LABELS.get(family.family, family.family)} all cores"
            found.append(
                Ceiling(
                    label if own == dtype else f"{label} ({own})",
                    family.all_cores,
                    "precision_peak probe",
                    dtype="" if own == dtype else own,
                )
            )
    return sorted(found, key=lambda c: c.gflops)


def _best_family(summary: RunSummary, one_core: float) -> str:
    """The ``precision_peak`` family whose one-core rate is ``one_core`` ("" if none)."""
    return next((f.family for f in summary.machine.precision_peaks if f.one_core == one_core), "")


def _family_roof(summary: RunSummary, family: str, parallel: bool) -> float | None:
    """The measured rate of a rung's own instruction family (its hot loop's
    ``GeneratedCode.family``: ``vdpbf16ps`` is AVX-512 BF16 and cannot use AMX), on all cores
    for a parallel rung, else one; None for float code or an unmeasured family."""
    for f in summary.machine.precision_peaks:
        if family and f.family == family:
            return f.all_cores if parallel else f.one_core
    return None


FAMILY_LABELS = {"avx512_bf16": "AVX-512 BF16", "amx_bf16": "AMX BF16", "avx512_fp16":
                 "AVX-512 FP16", "avx512_vnni": "AVX-512 VNNI", "amx_int8": "AMX INT8"}  # fmt: skip
"""How the roofline names each family's roof."""


def roofline(summary: RunSummary) -> Roofline:
    """The run's roofline: ceilings, bandwidth and a point per ok rung with its intensity."""
    found = ceilings(summary)
    bandwidth = roofline_bandwidth(summary.machine.bandwidth_gbs)
    peak = max((c.gflops for c in found if c.bounds_the_run), default=None)
    ridge = ridge_point(peak, bandwidth)
    # a rung on one thread is judged against one core's measured roofs, where measured
    entry = summary.machine.peak_gflops.get(summary.settings.dtype)
    one_peak = entry.one_core if entry is not None else None
    one_bandwidth = summary.machine.bandwidth_gbs.get("one_core") or bandwidth
    points = []
    for r in sorted(summary.scenarios, key=lambda r: r.rung):
        if not r.has_speed or not r.gflops or r.dtype != summary.settings.dtype:
            continue  # (an engine rung at its own precision is on its own dtype's roofline)
        intensity = r.arithmetic_intensity or arithmetic_intensity(r.n, r.dtype)  # older files
        roof, slope, knee = peak, bandwidth, ridge
        if "parallel" not in r.layers and one_peak:
            roof, slope = one_peak, one_bandwidth
            knee = ridge_point(roof, slope)
        family = r.generated_code.family if r.generated_code is not None else ""
        if own := _family_roof(summary, family, "parallel" in r.layers):
            roof = own  # under its own family's roof, not the best family's
            knee = ridge_point(roof, slope)
        attainable = min(roof, intensity * slope) if roof and slope else None
        bound = "" if knee is None else ("memory" if intensity < knee else "compute")
        points.append(RooflinePoint(r.rung, r.name, r.n, intensity, r.gflops, attainable, bound))
    return Roofline(summary.settings.dtype, found, bandwidth, points, trajectories(summary))


def trajectories(summary: RunSummary) -> dict[str, list[tuple[int, float, float]]]:
    """The ok points of the summary's batch sweep per scenario, by growing m (empty without
    one): (m, intensity, GFLOP/s), as ``analysis.shapes`` computed them."""
    record = summary.shapes
    if record is None:
        return {}
    paths: dict[str, list[tuple[int, float, float]]] = {}
    for p in sorted(record.points, key=lambda p: (p.scenario, p.m)):
        if p.status == "ok" and p.gflops:
            paths.setdefault(p.scenario, []).append((p.m, p.intensity, p.gflops))
    return paths
