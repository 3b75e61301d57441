"""From GEMV to GEMM: where a rectangular product C (m×n) = A (m×k)·B (k×n) sits on the roofline.

B is the fixed "weights" matrix (k × n), m the batch.  Everything here is pure arithmetic on
numbers given to it (tested on fixed numbers); the measurement is ``sweeps.shapes``, the
records ``summary.shapes``.

**Intensity.**  A product does 2·m·k·n flops and must move at least A, B and C once:
``itemsize·(m·k + k·n + m·n)`` bytes, so its arithmetic intensity is
``I(m) = 2mkn / (itemsize·(mk + kn + mn))`` flop/byte.  At m = 1 (a matrix-vector product)
with k = n, I ≈ 2 / itemsize (¼ flop/byte in float64): B is read once for two flops per element.
I grows almost linearly in m while B dominates the traffic and saturates at
2kn / (itemsize·(k + n)) as m → ∞.

**Roofs.**  The attainable speed is ``min(peak, bandwidth × I)`` GFLOP/s (GB/s × flop/byte);
the product is *memory*-bound while ``bandwidth × I < peak``, *compute*-bound from there on.

**Predicted crossing.**  The ridge point R = peak / bandwidth (flop/byte).  Solving I(m) = R:
``m* = R·s·k·n / (2kn − R·s·(k + n))`` (s the itemsize); when the denominator is ≤ 0 the
intensity never reaches R (B too small for this machine): no crossing.

**Modelled crossing.**  The ridge point assumes a call costs only its traffic and its flops;
a BLAS-style GEMM also packs all of B every call and runs its micro-kernel on whole MR-row
blocks.  :func:`modelled_seconds` prices both from measured figures (the ``stream_triad``
probe's packing rate, the blocking of ``c_blocked_packed`` on this CPU, the peak), and
:func:`modelled_crossing` reads its crossing off that modelled curve by the measured rule.

**Measured crossing (our definition).**  The bandwidth slope is ``bandwidth × I(m)``.  Each
measured point's *slope efficiency* is ``e(m) = gflops(m) / (bandwidth × I(m))``.  The curve
starts on the slope with some efficiency e₀, the median over its :data:`REFERENCE_POINTS`
smallest batches (a kernel may stream B at less than the STREAM-triad bandwidth: one core, a
naive loop); the crossing is the **first measured batch m from which on every point's
efficiency is at most half of e₀** (:data:`CROSSING_FRACTION`): it left the slope and stayed
off it, so one slow point of a disturbed sample does not count as the crossing.
Why half: if the time of a call is the memory time plus the compute time (no overlap),
``1/gflops = 1/(e₀·bandwidth·I) + 1/peak`` and the efficiency is exactly e₀/2 where
e₀·bandwidth·I = peak, i.e. at the kernel's own ridge; with perfect overlap
(gflops = min(peak, e₀·bandwidth·I)) it is e₀/2 at twice the ridge.  So the first batch at
half efficiency is the ridge within a factor of two (plus the batch spacing), whatever the
kernel's streaming efficiency, and a noisy point near the slope does not trigger it (a 2×
drop is well above the run-to-run noise of a shared machine).  Normalising by e₀ rather than
by the triad bandwidth makes the definition about the curve's *shape* (it leaves its own
slope), not about whether the kernel reaches the probe's bandwidth.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from overhead_tui.analysis.roofline import ridge_point
from overhead_tui.machine.reference import ReferenceMachine
from overhead_tui.summary.shapes import Crossing, Roofs, ShapesRecord

CROSSING_FRACTION = 0.5
"""A point has left the bandwidth slope when its slope efficiency is ≤ this fraction of the
efficiency at the smallest batches (see the module docstring)."""
REFERENCE_POINTS = 3
"""The slope efficiency the curve starts with is the median over this many smallest batches
(one disturbed point on a shared machine does not move it)."""


def intensity(m: int, k: int, n: int, itemsize: int) -> float:
    """Arithmetic intensity of A (m×k)·B (k×n) (flop/byte): 2mkn / (itemsize·(mk + kn + mn)).

    Raises:
        ValueError: a dimension or the itemsize is below 1.
    """
    if min(m, k, n, itemsize) < 1:
        raise ValueError(f"shape and itemsize must be ≥ 1, got m={m} k={k} n={n} s={itemsize}")
    return 2.0 * m * k * n / (itemsize * (m * k + k * n + m * n))


def attainable_gflops(
    intensity_fpb: float, peak_gflops: float | None, bandwidth_gbs: float | None
) -> float | None:
    """The roofline bound min(peak, bandwidth × intensity) (GFLOP/s); None without both roofs."""
    if not peak_gflops or not bandwidth_gbs:
        return None
    return min(peak_gflops, bandwidth_gbs * intensity_fpb)


def bound(
    intensity_fpb: float, peak_gflops: float | None, bandwidth_gbs: float | None
) -> str | None:
    """Which roof binds at ``intensity_fpb`` (flop/byte): ``"memory"`` while bandwidth ×
    intensity is below the peak, ``"compute"`` from there on; None without both roofs."""
    if not peak_gflops or not bandwidth_gbs:
        return None
    return "memory" if bandwidth_gbs * intensity_fpb < peak_gflops else "compute"


def predicted_crossing(k: int, n: int, itemsize: int, ridge: float | None) -> float | None:
    """The batch m (fractional) at which I(m) reaches ``ridge`` (flop/byte), or None when it
    never does (I saturates at 2kn / (itemsize·(k + n)) below the ridge) or no ridge is known.

    From 2mkn = R·s·(mk + kn + mn): m = R·s·k·n / (2kn − R·s·(k + n)).
    """
    if ridge is None or ridge <= 0:
        return None
    denominator = 2.0 * k * n - ridge * itemsize * (k + n)
    if denominator <= 0:
        return None
    return ridge * itemsize * k * n / denominator


def large_weights_crossing(itemsize: int, ridge: float | None) -> float | None:
    """The predicted crossing for weights much larger than the batch (k = n → ∞): R·s / 2."""
    return None if ridge is None or ridge <= 0 else ridge * itemsize / 2.0


def measured_crossing(
    points: Sequence[tuple[int, float]],
    k: int,
    n: int,
    itemsize: int,
    bandwidth_gbs: float | None,
    fraction: float = CROSSING_FRACTION,
) -> int | None:
    """The first measured batch that left the bandwidth slope (see the module docstring).

    Args:
        points: (m, GFLOP/s) of the ok points, any order (sorted here by m).
        k, n: B's shape; itemsize: bytes per element; bandwidth_gbs: the slope's bandwidth.
        fraction: a point left the slope when its efficiency ≤ fraction × the first point's.

    Returns:
        That batch m, or None: fewer than two points, no bandwidth, or the curve stayed on
        its slope up to the largest batch.
    """
    ordered = sorted((m, g) for m, g in points if g and g > 0)
    if len(ordered) < 2 or not bandwidth_gbs:
        return None

    def efficiency(m: int, gflops: float) -> float:
        return gflops / (bandwidth_gbs * intensity(m, k, n, itemsize))

    values = [(m, efficiency(m, gflops)) for m, gflops in ordered]
    reference = statistics.median(e for _, e in values[:REFERENCE_POINTS])
    threshold = fraction * reference
    for index, (m, _) in enumerate(values):
        if index and all(e <= threshold for _, e in values[index:]):
            return m
    return None


def modelled_seconds(m: int, k: int, n: int, itemsize: int, roofs: Roofs) -> float | None:
    """One call's time (s) as a BLAS-style GEMM spends it: packing B (k·n elements read and
    written at the measured packing rate) plus the micro-kernel on MR·⌈m/MR⌉ rows (a register
    block computes all its MR rows, however few are real) at the measured peak; None without
    those figures.  A's packing and C's write-back (m·(k + n) elements) are left out: at the
    batches where the crossing falls they are below 1/10 of B's."""
    rows = roofs.micro_kernel_rows
    if not roofs.packing_gbs or not roofs.peak_gflops or not rows:
        return None
    packing = 2.0 * k * n * itemsize / (roofs.packing_gbs * 1e9)
    kernel = 2.0 * rows * math.ceil(m / rows) * k * n / (roofs.peak_gflops * 1e9)
    return packing + kernel


def modelled_crossing(
    batches: Sequence[int], k: int, n: int, itemsize: int, roofs: Roofs
) -> int | None:
    """The batch of ``batches`` at which the curve of :func:`modelled_seconds` leaves the
    bandwidth slope, by the same rule as the measured one (:func:`measured_crossing`): a
    prediction from measured costs (packing, the micro-kernel's fill, the peak), no fitting."""
    points = []
    for m in batches:
        seconds = modelled_seconds(m, k, n, itemsize, roofs)
        if seconds is None:
            return None
        points.append((m, 2.0 * m * k * n / seconds / 1e9))
    return measured_crossing(points, k, n, itemsize, roofs.bandwidth_gbs)


# -- the summary's ``shapes`` on the roofline ------------------------------------------------


def recompute(record: ShapesRecord) -> ShapesRecord:
    """``record`` with each point's intensity, attainable bound and binding roof, and each
    scenario's crossing, computed from its ``roofs`` and the measured points (a new record;
    crossings of scenarios it no longer has are kept)."""
    k, n, itemsize = record.k, record.n, record.itemsize
    points = []
    for point in record.points:
        roofs = record.roofs_of(point.scenario)
        at = intensity(point.m, k, n, itemsize)
        points.append(
            replace(
                point,
                intensity=at,
                attainable_gflops=attainable_gflops(at, roofs.peak_gflops, roofs.bandwidth_gbs),
                bound=bound(at, roofs.peak_gflops, roofs.bandwidth_gbs),
            )
        )
    updated = replace(record, points=points)
    crossing = dict(record.crossing)
    for name in updated.scenarios():
        roofs = record.roofs_of(name)
        ridge = ridge_point(roofs.peak_gflops, roofs.bandwidth_gbs)
        crossing[name] = Crossing(
            measured_crossing(updated.curve(name), k, n, itemsize, roofs.bandwidth_gbs),
            predicted_crossing(k, n, itemsize, ridge),
            modelled_crossing(record.batches, k, n, itemsize, roofs),
        )
    return replace(updated, crossing=crossing)


# -- the reference machines -----------------------------------------------------------------


@dataclass(frozen=True)
class ReferenceCrossing:
    """A reference machine's predicted batch from its published figures (a prediction).

    ``precision``: ``float64``/``float32`` (this run's dtype) or ``float16`` (tensor/AMX
    peak, 2-byte elements: the inference case); ``ridge`` flop/byte; ``predicted_m`` at this
    run's k × n; ``large_weights_m`` for k = n → ∞ (R·s/2).
    """

    machine: str
    precision: str
    peak_gflops: float
    bandwidth_gbs: float
    ridge: float
    predicted_m: float | None
    large_weights_m: float


FP16_FIELDS = ("fp16_tensor_gflops", "fp16_amx_gflops")
"""Reference figures of a 16-bit matrix unit (GFLOP/s)."""


PRECISIONS: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("float64", ("fp64_gflops",), 8),
    ("float32", ("fp32_gflops",), 4),
    ("float16", FP16_FIELDS, 2),
)
"""(precision, reference peak fields, itemsize in bytes)."""


def reference_crossings(
    machines: Sequence[ReferenceMachine], k: int, n: int, dtype: str
) -> list[ReferenceCrossing]:
    """Each reference machine's predicted crossing in every precision it quotes a peak for:
    this run's ``dtype`` first, then the others (float16: a 16-bit matrix unit, 2-byte
    elements, the inference case).  Machines without a bandwidth are left out."""
    order = sorted(PRECISIONS, key=lambda p: p[0] != dtype)
    rows = []
    for machine in machines:
        bandwidth = machine.figure("bandwidth_gbs")
        if not bandwidth:
            continue
        for precision, fields, itemsize in order:
            peak = next((p for f in fields if (p := machine.figure(f))), None)
            if not peak:
                continue
            ridge = peak / bandwidth
            rows.append(
                ReferenceCrossing(
                    machine=machine.name,
                    precision=precision,
                    peak_gflops=peak,
                    bandwidth_gbs=bandwidth,
                    ridge=ridge,
                    predicted_m=predicted_crossing(k, n, itemsize, ridge),
                    large_weights_m=ridge * itemsize / 2.0,
                )
            )
    return rows


def fmt_batch(m: float | None) -> str:
    """A batch for tables: ``—`` when unknown, whole numbers as such, else one decimal."""
    if m is None or not math.isfinite(m):
        return "—"
    return f"{m:.0f}" if abs(m - round(m)) < 0.05 or m >= 100 else f"{m:.1f}"
