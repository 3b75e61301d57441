"""The memory rows of a compiled rung's breakdown, measured against its own kernel timed again
on other inputs (``worker.compiled_rung``): where the allocator put A and B (the placement:
copies on fresh 2 MiB pages, 64-byte aligned), the set conflicts of its row stride (the
kernel at the nearest order whose rows reach every L1 set), then the memory hierarchy
(copies that are L1-resident: every page of them one physical page), each step the time
beyond the next (``analysis.compiled`` puts them beside the in-core bounds).

The resident copies are L1-resident only where the L1 is tagged by physical address; the
``scalar_fma`` probe's aliased loads say whether they are on this CPU (:data:`ALIASED_HIT`);
where they are not, the row beyond them is a lower bound, and where the rung ran slower on
them than on its own arrays (:func:`resident_slower`) the row is not separated at all.
"""

from __future__ import annotations

import statistics

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.breakdown import BreakdownRow
from overhead_tui.summary.records import ScenarioResult


def _beyond(
    measured: unc.Interval, samples_s: list[float], layer: str, unit: str
) -> tuple[BreakdownRow, float]:
    """A row of the time per multiply-add beyond a second timing of the same kernel
    (``samples_s``: its samples' seconds per FMA), from the middle of ``measured`` and
    clamped at 0, its interval from the two timings' extremes; and that timing's median ns."""
    values = sorted(x * 1e9 for x in samples_s)
    reference = statistics.median(values)
    middle = measured[0] + (measured[1] - measured[0]) / 2
    ns = max(0.0, middle - reference)
    low = max(0.0, measured[0] - values[-1])
    high = max(0.0, measured[1] - values[0])
    row = BreakdownRow(
        layer=layer,
        events_per_fma=1.0,
        unit_cost=ns,
        unit=unit,
        ns_per_fma=ns,
        unit_interval=(low, high),
        ns_interval=(low, high),
    )
    return row, reference


ALIASED_HIT = 2.0
"""A load through pages aliased to one physical page within 2× a load within one page is an
L1 hit: both probe kernels are bound by their four add chains then (ratio 1), where a refill
from L2 takes 12 cycles or more; measured 5–10× on a 2-vCPU Zen 3 (2026-12-07, whose L1
picks ways by linear address: AMD 55723 §2.6.2.2).  Beyond it the resident copies
(``kit.pages.resident_inputs``) are not L1-resident on this CPU, and the row
beyond them is a lower bound of the memory hierarchy's cost.  Not measured on an Intel
core here (none was at hand): their L1 is tagged by physical address, so the ratio should be
about 1."""


def aliasing_refills(costs: UnitCosts) -> str:
    """Why the row beyond the resident timing is only a lower bound on this CPU ("" where the
    copies are L1-resident or the probe did not measure it): its aliased loads against loads
    within one page (:data:`ALIASED_HIT`).  The copies still drop the misses of A and B at
    its n, but pay a refill from L2 where a load changes page, so the rung's time beyond
    them is at least its memory hierarchy's."""
    aliased, page = costs.aliased_load_ns, costs.page_load_ns
    if not aliased or not page or aliased <= ALIASED_HIT * page:
        return ""
    return (
        f"a lower bound on this CPU: a load through pages aliased to one physical page took "
        f"{aliased / page:.1f}× a load within one page (scalar_fma probe), so the copies of A "
        "and B on such pages are slower than L1 here (an L1 that picks ways by linear address "
        "refills each alias: AMD 55723 §2.6.2.2)"
    )


def resident_slower(result: ScenarioResult, measured: unc.Interval) -> str:
    """The second sign, from the rung itself: its kernel on the resident copies ran slower in
    every sample than on its own arrays at their slowest (``measured``: ns per FMA), so the
    copies are not L1-resident here (Zen 3: c_naive_O2 at n = 384 ran 1.43 ns/FMA on its
    own arrays and 1.8 on aliased ones, 2026-12-07).  "" where they were not slower."""
    resident = result.resident
    if resident is None or not resident.samples_s_per_fma:
        return ""
    fastest = min(resident.samples_s_per_fma) * 1e9
    if fastest <= measured[1]:
        return ""
    return (
        f"not separated on this CPU: its kernel on copies of A and B on pages aliased to one "
        f"physical page ran {fastest:.3g} ns/FMA, slower than the {measured[1]:.3g} on its "
        "own arrays, so those copies are not L1-resident here"
    )


RESIDENT_UNIT = "ns/FMA beyond its time with A and B resident in L1"
LOWER_BOUND_UNIT = (
    "ns/FMA beyond its time on copies of A and B on one physical page (at least: they refill "
    "from L2 on this CPU)"
)


def memory_rows(
    result: ScenarioResult, measured: unc.Interval, unit: str | None = RESIDENT_UNIT
) -> tuple[list[BreakdownRow], float | None, int | None, float | None] | None:
    """The ``memory`` rows, one step each: the placement of A and B (the time beyond the
    same kernel on 64-byte aligned copies of them on 2 MiB pages, where it was timed), then
    the memory hierarchy (the time beyond the L1-resident time, from the fresh placement's
    time where there is one, in ``unit``: :data:`LOWER_BOUND_UNIT` where the copies are not
    L1-resident, :func:`aliasing_refills`; None: not separated, :func:`resident_slower`);
    the resident ns per FMA, its order and the placement's ns.  None without a resident
    timing."""
    resident = result.resident
    if resident is None or not resident.samples_s_per_fma:
        return None
    steps = (
        (
            resident.huge_page_samples_s_per_fma,
            "ns/FMA beyond its time with A and B (and a C set up like them) on fresh "
            "2 MiB pages, 64-byte aligned (cache-line splits, TLB misses)",
        ),
        (
            resident.spread_samples_s_per_fma if resident.spread_n else [],
            f"ns/FMA beyond its time at n = {resident.spread_n}, whose rows reach every L1 "
            "set (the set conflicts of its own row stride)",
        ),
    )
    rows: list[BreakdownRow] = []
    before = measured
    for samples, step_unit in steps:  # each step: the time beyond the next timing
        if not samples:
            continue
        row, reference = _beyond(before, samples, "memory", step_unit)
        rows.append(row)
        values = sorted(x * 1e9 for x in samples)
        before = (values[0], values[-1]) if reference < before[1] else before
    placement_ns = rows[0].ns_per_fma if resident.huge_page_samples_s_per_fma else None
    if unit is None:
        return (rows, None, None, placement_ns) if rows else None
    row, in_l1 = _beyond(before, resident.samples_s_per_fma, "memory", unit)
    return [*rows, row], in_l1, resident.n, placement_ns
