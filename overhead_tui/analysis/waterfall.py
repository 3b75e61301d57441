"""The waterfall: the ladder as successive steps, each step's saving credited to the layers whose
*measured* cost changed between the two rungs.

A rung's modelled cost of a layer is the sum of its breakdown's priced rows (counted events per
multiply-add × probed unit cost, ``analysis.attribution``): dispatches, floats boxed,
subscripts, calls, numpy calls; for compiled rungs (``analysis.compiled``) the largest in-core
bound of the hot loop, the time beyond L1 (memory) and flops at the dense kernel's rate. A step
from rung A to rung B credits each layer with A's modelled cost minus B's (per flop; negative
when B pays more), and the rest of the measured saving to ``other`` — *unexplained*, drawn in
its own neutral colour. The layers the later rung's file declares it removes (``REMOVES``) are
kept beside the credits (``declared``), never used for them; a declaration the measurements do
not bear out is said in ``contradiction``. A labelled rest (``rest of the measured time``) is no
measurement and counts as unexplained.

Noise (``analysis.uncertainty``, interval arithmetic): a layer's change has the interval of A's
cost minus B's (each the sum of its rows' ``ns_interval``); the saving the interval of A's
timing minus B's (median ± IQR/2, per flop); *unexplained*, the measured time minus the model,
the saving's interval minus the modelled layers'. A change whose interval includes 0 lies
within the noise of its two ends: it is not credited, but named in ``noise_layers`` and added
to ``noise_s_per_flop`` (so the credits and the noise always add up to the saving). A step
whose saving's interval includes 0 is ``within_noise`` (views say so before any credit).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.summary.breakdown import LayerChange, WaterfallStep
from overhead_tui.summary.codec import Interval
from overhead_tui.summary.layers import SHORT_LABELS
from overhead_tui.summary.records import RunSummary, ScenarioResult

UNEXPLAINED = "other"
"""The layer key of what the measured changes do not explain (labelled "unexplained")."""
METHOD = "counted events × probed unit costs (the model breakdown's priced rows)"
"""How an interpreted layer's change is measured (recorded with every change)."""
METHODS = {
    "scalar_compute": "its hot loop's largest in-core bound at measured rates and latencies",
    "simd_compute": "its hot loop's largest in-core bound at measured rates and latencies",
    "memory": "its time beyond the same kernel's with A and B resident in L1 (measured)",
    "dense_kernel": "its flops at the dense kernel's measured rate (dense_peak probe)",
}
"""How a compiled layer's change is measured (``analysis.compiled``); others: :data:`METHOD`."""
MIN_CREDIT = 0.005
"""A layer whose measured change is below 0.5 % of the step's saving is not credited (its
change stays in ``changes``; what it moved is part of the unexplained rest)."""
S_PER_FLOP = 1e-9 / 2
"""Seconds per flop of one ns per multiply-add (2 flops): a breakdown row's unit."""
ROUNDING = 1e-9
"""A rest (or its bound) under this share of the figures it was subtracted from is their
rounding, no measurement: 0."""
MIN_CONFIRMING_SHARE = 0.1
"""A declared layer counts as borne out when its measured change is at least this share of
the step's saving."""


def modelled_s_per_flop(result: ScenarioResult) -> dict[str, float] | None:
    """{layer: s per flop} of a rung's priced breakdown rows (None without a breakdown).

    Rows are ns per multiply-add (2 flops); a labelled rest (no event count) is left out."""
    bounds = modelled_bounds(result)
    return None if bounds is None else {x: b[1] for x, b in bounds.items()}


def modelled_bounds(result: ScenarioResult) -> dict[str, tuple[float, float, float]] | None:
    """{layer: (low, point, high) s per flop} of a rung's priced rows: each row's point value
    and ``ns_interval`` (its point twice without one) summed per layer (None without a
    breakdown).  :func:`modelled_s_per_flop` reads the points."""
    if result.breakdown is None:
        return None
    cost: dict[str, tuple[float, float, float]] = {}
    for row in result.breakdown.rows:
        if row.events_per_fma is None or row.ns_per_fma is None:
            continue
        low, point, high = cost.get(row.layer, (0.0, 0.0, 0.0))
        row_low, row_high = row.ns_interval or (row.ns_per_fma, row.ns_per_fma)
        cost[row.layer] = (
            low + row_low * S_PER_FLOP,
            point + row.ns_per_fma * S_PER_FLOP,
            high + row_high * S_PER_FLOP,
        )
    return cost


def _changes(
    before: ScenarioResult, after: ScenarioResult
) -> tuple[dict[str, LayerChange], dict[str, Interval]]:
    """{layer: its cost before and after}, {layer: [low, high] of before − after}."""
    old, new = modelled_bounds(before), modelled_bounds(after)
    if old is None or new is None:
        return {}, {}
    none = (0.0, 0.0, 0.0)
    changes, intervals = {}, {}
    for layer in sorted(set(old) | set(new)):
        a, b = old.get(layer, none), new.get(layer, none)
        if a[1] or b[1]:
            changes[layer] = LayerChange(a[1], b[1], METHODS.get(layer, METHOD))
            intervals[layer] = unc.difference((a[0], a[2]), (b[0], b[2]))
    return changes, intervals


class Credits(NamedTuple):
    """A step's saving split by :func:`credit` (s per flop)."""

    layers: dict[str, float]
    """{credited layer or ``other``: its change}."""
    intervals: dict[str, Interval]
    """{layer or ``other``, credited or within noise: its change's interval}."""
    noise: list[str]
    """The layers whose change's interval contains 0 (``other`` last)."""
    noise_s_per_flop: float
    """What their changes add up to: the saving less the credits."""
    noise_interval: Interval
    """Its interval: the saving's less the credited changes'."""


def credit(
    saved: float,
    saved_interval: Interval,
    changes: dict[str, float],
    intervals: dict[str, Interval],
) -> Credits:
    """Split a step's saving by the layers' changes (``changes``, their ``intervals``).

    Changes under :data:`MIN_CREDIT` of the saving join the unexplained rest; ``other`` is the
    saving minus the other layers' changes, its interval the saving's minus theirs.  A change
    whose interval contains 0 is within noise: listed, not credited."""
    kept = {x: d for x, d in changes.items() if abs(d) >= MIN_CREDIT * abs(saved)}
    kept_intervals = {x: intervals[x] for x in kept}
    scale = sum(map(abs, saved_interval)) + sum(abs(a) + abs(b) for a, b in kept_intervals.values())

    def rounded(value: float) -> float:  # what is left of a subtraction's rounding: 0
        return value if abs(value) > ROUNDING * scale else 0.0

    def rest(interval: Interval, parts: list[Interval]) -> Interval:
        low, high = unc.difference(interval, unc.total(parts))
        return (rounded(low), rounded(high))

    kept_intervals[UNEXPLAINED] = rest(saved_interval, list(kept_intervals.values()))
    kept[UNEXPLAINED] = rounded(saved - sum(kept.values()))
    noise = [x for x in kept if unc.contains(kept_intervals[x], 0.0)]
    credited = {x: d for x, d in kept.items() if x not in noise}
    noise_interval = rest(saved_interval, [kept_intervals[x] for x in credited])
    within = sum(kept[x] for x in noise)
    return Credits(credited, kept_intervals, noise, within, noise_interval)


def contradiction(
    declared: list[str], changes: dict[str, LayerChange], credits: dict[str, float], saved: float
) -> str:
    """ "declared: memory; measured: dispatch −38 %, subscripts −22 %" (each layer's modelled
    cost after / before − 1, largest credits first) when no declared layer's measured change
    reaches :data:`MIN_CONFIRMING_SHARE` of the saving; "" otherwise or when nothing was saved
    or measured."""
    if not declared or saved <= 0 or not changes:
        return ""
    if any(credits.get(x, 0.0) >= MIN_CONFIRMING_SHARE * saved for x in declared):
        return ""
    measured = sorted(
        (x for x in changes if x in credits and abs(credits[x]) >= 0.01 * saved),
        key=lambda x: -abs(credits[x]),
    )
    said = ", ".join(
        f"{SHORT_LABELS.get(x, x)} {changes[x].relative:+.0%}"
        if changes[x].relative is not None
        else f"{SHORT_LABELS.get(x, x)} new"
        for x in measured[:3]
    )
    names = ", ".join(SHORT_LABELS.get(x, x) for x in declared)
    return f"declared: {names}; measured: {said or 'no modelled layer beyond noise'}"


def waterfall(summary: RunSummary) -> list[WaterfallStep]:
    """Steps between consecutive ok rungs: speedup per flop and the time saved per layer.

    Each :class:`~overhead_tui.summary.breakdown.WaterfallStep`: ``from_``, ``to``,
    ``speedup``, ``saved_s_per_flop``, ``layers`` {layer: s/flop credited from its measured
    change, ``other``: unexplained}, ``changes`` {layer: before, after (s/flop), method},
    ``declared``, ``contradiction``, ``split``, ``speedup_interval`` [low, high] (from both
    rungs' IQRs), ``within_noise``: the speedup's interval contains 1; ``saved_interval``,
    ``change_intervals``, ``noise_layers``, ``noise_s_per_flop``, ``noise_interval``:
    :func:`credit`.
    """
    rungs = [  # an engine rung at its own precision is no step of this dtype's ladder
        r
        for r in sorted(summary.scenarios, key=lambda r: r.rung)
        if r.has_speed and r.dtype == summary.settings.dtype
    ]
    steps = []
    for before, after in itertools.pairwise(rungs):
        assert before.median_s is not None and after.median_s is not None
        t_before = before.median_s / before.flops
        t_after = after.median_s / after.flops
        saved = t_before - t_after
        timed_before = unc.timing_interval(before.median_s, before.iqr_s)
        timed_after = unc.timing_interval(after.median_s, after.iqr_s)
        saved_interval = unc.difference(
            (timed_before[0] / before.flops, timed_before[1] / before.flops),
            (timed_after[0] / after.flops, timed_after[1] / after.flops),
        )
        changes, intervals = _changes(before, after)
        deltas = {x: c.before_s_per_flop - c.after_s_per_flop for x, c in changes.items()}
        credits = credit(saved, saved_interval, deltas, intervals)
        split = "by measured change" if changes else "not measured (no model breakdown)"
        low, high = unc.ratio(timed_before, timed_after)
        per_flop = after.flops / before.flops  # the speedup is per flop
        speedup_interval = (low * per_flop, high * per_flop)
        declared = list(after.removes)
        steps.append(
            WaterfallStep(
                from_=before.name,
                to=after.name,
                speedup=t_before / t_after,
                saved_s_per_flop=saved,
                layers=credits.layers,
                split=split,
                speedup_interval=speedup_interval,
                within_noise=unc.contains(speedup_interval, 1.0),
                changes=changes,
                declared=declared,
                contradiction=contradiction(declared, changes, credits.layers, saved),
                saved_interval=saved_interval,
                change_intervals=credits.intervals,
                noise_layers=credits.noise,
                noise_s_per_flop=credits.noise_s_per_flop,
                noise_interval=credits.noise_interval if credits.noise else None,
            )
        )
    return steps
