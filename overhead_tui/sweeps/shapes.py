"""Batch sweeps of rectangular products: C (m×n) = A (m×k)·B (k×n), B fixed, m from 1 up.

The measurement behind ``overhead-tui shapes`` (issue 16): when does a matrix product leave
the memory roof?  B is the "weights" matrix, larger than the last-level cache
(:func:`default_weights_order`); m is the batch, from 1 (a matrix-vector product) up to n.

Each (scenario, m) point is one ordinary :class:`~overhead_tui.engine.runner.Runner` run of
that one scenario with ``Settings(size=n, m=m, k=k)``: its own worker, timed and validated,
its own folder ``points/<scenario>-m<m>/`` in the sweep's run directory.  A scenario without
``SHAPES = True`` is skipped by the runner with the reason, which ends its sweep.

Like ``sweeps.sizes``: the probes are loaded first (cache, or measured now, not charged to the
budget) and :func:`overhead_tui.machine.limits.apply_limits` gives the machine's measured peaks and
bandwidth; the budget is split fairly (:func:`~overhead_tui.sweeps.budget.fair_share_s`);
before each batch after the first the point's cost is predicted from the last one (time per
call grows at most linearly in m: exact once compute-bound, an over-estimate while B's
traffic dominates; plus the last point's overhead and the validation's reference products),
and a scenario stops with reason ``budget`` when it would not fit.  A failed point ends the
scenario.  The summary's ``shapes`` (:class:`~overhead_tui.summary.shapes.ShapesRecord`) is
recomputed (``analysis.shapes.recompute``) and saved after every point.  No Textual here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from overhead_tui.analysis.shapes import recompute
from overhead_tui.kit.packed_gemm import gemm_blocking
from overhead_tui.machine.caches import FALLBACK_LLC_BYTES
from overhead_tui.machine.limits import roofline_bandwidth
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import MachineInfo, RunSummary, ScenarioResult, Settings
from overhead_tui.summary.shapes import Roofs, ShapePoint, ShapesRecord
from overhead_tui.summary.sweep import BudgetedPoint, BudgetedRecord
from overhead_tui.sweeps.budget import PointCost, timed_calls
from overhead_tui.sweeps.budgeted import BudgetedSweep, SweepAxis

DEFAULT_SCENARIOS: tuple[str, ...] = ("numpy_matmul", "numpy_matmul_1thread", "numba_ikj")
"""The dense kernel, the 1-thread BLAS and a compiled loop without cache blocking."""
DEFAULT_BUDGET_S = 90.0
"""Total time budget of a shapes sweep (s), split among its scenarios."""
SHAPES_REPEATS = 5
"""Timed samples per point."""
SHAPES_MIN_SAMPLE_S = 0.02
"""Shortest timed sample of a point (s)."""
CACHE_FACTOR = 2
"""B must hold at least this many times the last-level cache (bytes), so it streams from DRAM."""
ORDER_STEP = 512
"""The default k = n is a multiple of this."""
"""Point statuses that end a scenario's sweep."""


# -- B's size from the caches ---------------------------------------------------------------


def default_weights_order(
    caches: dict[str, int], itemsize: int, max_order: int | None = None, limited_by: str = ""
) -> tuple[int, str]:
    """The default k = n: the smallest multiple of :data:`ORDER_STEP` whose B (k × n) holds at
    least :data:`CACHE_FACTOR` × the last-level cache, and a sentence saying so.

    ``max_order`` (the smallest ``MAX_SIZE`` of the selected scenarios, named by
    ``limited_by``) caps it: the order is then the largest multiple of :data:`ORDER_STEP` (or
    ``max_order`` itself) that fits, and the sentence says how much of the cache B still is.
    """
    levels = {name: size for name, size in caches.items() if not name.endswith("i")}
    if levels:
        name = max(levels, key=lambda key: (int(key[1]), levels[key]))
        llc, source = levels[name], f"{name} {levels[name] / 2**20:g} MiB (sysfs)"
    else:
        llc, source = FALLBACK_LLC_BYTES, "no cache sizes reported: assumed 32 MiB"
    order = ORDER_STEP
    while itemsize * order * order < CACHE_FACTOR * llc:
        order += ORDER_STEP
    if max_order is not None and order > max_order:
        wanted = order
        order = max_order // ORDER_STEP * ORDER_STEP or max_order
        weights = itemsize * order * order
        return order, (
            f"k = n = {order}, clamped from {wanted} to the maximum of "
            f"{limited_by or 'the scenarios'} ({max_order}): B is {weights / 2**20:.0f} MiB, "
            f"{weights / llc:.2g}× the last-level cache ({source}), so part of it may stay "
            "in the cache; give --k/--n and drop that scenario for a B that streams"
        )
    mib = itemsize * order * order / 2**20
    return order, (
        f"k = n = {order}: B is {mib:.0f} MiB, at least {CACHE_FACTOR}× the last-level "
        f"cache ({source}), so it streams from memory"
    )


def default_batches(n: int) -> list[int]:
    """m = 1, 2, 4, … up to n, and n itself."""
    batches, m = [], 1
    while m < n:
        batches.append(m)
        m *= 2
    return [*batches, n]


# -- the budget -----------------------------------------------------------------------------


VALIDATION_PRODUCTS = 4
"""Reference products a worker computes to validate (2 per check, first and last call)."""


def predict_batch_s(last: PointCost, next_m: int, repeats: int, min_sample_s: float) -> float:
    """Predicted wall time (s) of the point at ``next_m``: the call time scaled linearly in m,
    times the calls the samples need, plus the last overhead and the validation products
    (each costed as one call: an over-estimate for BLAS, the order for slower rungs)."""
    call_s = last.median_s * next_m / last.size
    calls = timed_calls(call_s, repeats, min_sample_s) + VALIDATION_PRODUCTS
    return calls * call_s + last.overhead_s


# -- events ---------------------------------------------------------------------------------


def scenario_roofs(spec: ScenarioSpec, machine: MachineInfo, dtype: str) -> Roofs:
    """The roofs a scenario is judged against: all cores' measured peak and the best STREAM
    bandwidth for a rung with the ``parallel`` layer, one core's for the others."""
    peak = machine.peak_gflops.get(dtype)
    bandwidth = machine.bandwidth_gbs or {}
    # a BLAS (the dense kernel) packs B every call; a kernel that does not is not modelled so
    blas = "dense_kernel" in spec.layers
    rows = micro_kernel_rows(machine) if blas else None
    packing = (machine.packing_gbs or None) if blas else None
    if "parallel" in spec.layers:
        every, one = roofline_bandwidth(bandwidth), bandwidth.get("one_core")
        # threads pack their share of B: one thread's packing rate × all cores' bandwidth gain
        packing_all = packing * every / one if packing and every and one else None
        return Roofs("all cores", peak.measured if peak else None, every, packing_all, rows)
    one_peak = peak.one_core if peak else None
    return Roofs("one core", one_peak, bandwidth.get("one_core"), packing, rows)


def micro_kernel_rows(machine: MachineInfo) -> int | None:
    """MR of ``c_blocked_packed``'s register block on this machine's ISA (``worker
    .packed_gemm``), or None for an unknown CPU."""
    if not machine.isa:
        return None
    return gemm_blocking({}, set(machine.isa)).mr


def shape_point(result: ScenarioResult, m: int) -> ShapePoint:
    """The summary's record of the point at batch ``m`` (speeds and warnings only when ok)."""
    speed = result.has_speed
    return ShapePoint(
        scenario=result.name,
        m=m,
        status=result.status,
        median_s=result.median_s if speed else None,
        gflops=result.gflops if speed else None,
        error=result.error,
        wall_s=result.wall_s,
        warnings=list(result.warnings) if speed else [],
    )


def _log_fields(point: BudgetedPoint) -> dict[str, Any]:
    batch = point.m if isinstance(point, ShapePoint) else None
    return {"name": point.scenario, "m": batch, "status": point.status}


def _with_roofs(
    record: BudgetedRecord, summary: RunSummary, specs: list[ScenarioSpec]
) -> BudgetedRecord:
    """Each scenario's roofs from the machine's limits, every point on the roofline, the
    crossings (``analysis.shapes.recompute``)."""
    assert isinstance(record, ShapesRecord)
    dtype = summary.settings.dtype
    roofs = {s.name: scenario_roofs(s, summary.machine, dtype) for s in specs}
    return recompute(replace(record, roofs=roofs))


class ShapesSweep(BudgetedSweep):
    """Runs a batch sweep: every scenario at every m (smallest first) with B fixed (k × n).

    Args:
        specs: scenarios, swept in this order.
        k, n: B's shape (A is m × k, C is m × n).
        batches: the m to run (ascending).
        budget_s: total budget (s), split fairly among the scenarios.
        settings: dtype, repeats, min_sample_s, seed, timeout_s, python, probes.
        run_dir: the sweep's run directory.
        size_reason: why B has this size (shown and stored).
        clock: monotonic clock (s); injectable for tests.
    """

    def __init__(
        self,
        specs: Sequence[ScenarioSpec],
        k: int,
        n: int,
        batches: Sequence[int],
        budget_s: float,
        settings: Settings,
        run_dir: Path,
        size_reason: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        names = [s.name for s in specs]
        swept = replace(settings, size=n, k=k, m=None, scenarios=names)
        self.k, self.n = k, n
        self.batches = sorted(set(batches))
        record = ShapesRecord(
            k=k,
            n=n,
            dtype=settings.dtype,
            batches=list(self.batches),
            budget_s=budget_s,
            size_reason=size_reason,
        )
        axis = SweepAxis(
            name="m",
            setting="m",
            kind="shapes",
            record=record,
            started={"k": k, "n": n, "batches": self.batches, "budget_s": budget_s},
            predict_s=predict_batch_s,
            point=shape_point,
            log_fields=_log_fields,
            folder_prefix="m",
            sort_scenarios=False,
            derive_record=_with_roofs,
        )
        super().__init__(specs, batches, budget_s, swept, run_dir, axis, clock)
