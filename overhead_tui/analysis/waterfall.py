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
"""

from __future__ import annotations

import itertools

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.summary.breakdown import LayerChange, WaterfallStep
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
MIN_CONFIRMING_SHARE = 0.1
"""A declared layer counts as borne out when its measured change is at least this share of
the step's saving."""


def modelled_s_per_flop(result: ScenarioResult) -> dict[str, float] | None:
    """{layer: s per flop} of a rung's priced breakdown rows (None without a breakdown).

    Rows are ns per multiply-add (2 flops); a labelled rest (no event count) is left out."""
    if result.breakdown is None:
        return None
    cost: dict[str, float] = {}
    for row in result.breakdown.rows:
        if row.events_per_fma is None or row.ns_per_fma is None:
            continue
        cost[row.layer] = cost.get(row.layer, 0.0) + row.ns_per_fma * 1e-9 / 2
    return cost


def _changes(before: ScenarioResult, after: ScenarioResult) -> dict[str, LayerChange]:
    old, new = modelled_s_per_flop(before), modelled_s_per_flop(after)
    if old is None or new is None:
        return {}
    return {
        layer: LayerChange(old.get(layer, 0.0), new.get(layer, 0.0), METHODS.get(layer, METHOD))
        for layer in sorted(set(old) | set(new))
        if old.get(layer, 0.0) or new.get(layer, 0.0)
    }


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
    return f"declared: {names}; measured: {said or 'no modelled layer changed'}"


def waterfall(summary: RunSummary) -> list[WaterfallStep]:
    """Steps between consecutive ok rungs: speedup per flop and the time saved per layer.

    Each :class:`~overhead_tui.summary.breakdown.WaterfallStep`: ``from_``, ``to``,
    ``speedup``, ``saved_s_per_flop``, ``layers`` {layer: s/flop credited from its measured
    change, ``other``: unexplained}, ``changes`` {layer: before, after (s/flop), method},
    ``declared``, ``contradiction``, ``split``, ``speedup_interval`` [low, high] (from both
    rungs' IQRs), ``within_noise``: the speedup's interval contains 1.
    """
    rungs = [r for r in sorted(summary.scenarios, key=lambda r: r.rung) if r.has_speed]
    steps = []
    for before, after in itertools.pairwise(rungs):
        assert before.median_s is not None and after.median_s is not None
        t_before = before.median_s / before.flops
        t_after = after.median_s / after.flops
        saved = t_before - t_after
        changes = _changes(before, after)
        credited = {x: c.before_s_per_flop - c.after_s_per_flop for x, c in changes.items()}
        credited = {x: s for x, s in credited.items() if abs(s) >= MIN_CREDIT * abs(saved)}
        credited[UNEXPLAINED] = saved - sum(credited.values())
        split = "by measured change" if changes else "not measured (no model breakdown)"
        low, high = unc.ratio(
            unc.timing_interval(before.median_s, before.iqr_s),
            unc.timing_interval(after.median_s, after.iqr_s),
        )
        per_flop = after.flops / before.flops  # the speedup is per flop
        speedup_interval = (low * per_flop, high * per_flop)
        declared = list(after.removes)
        steps.append(
            WaterfallStep(
                from_=before.name,
                to=after.name,
                speedup=t_before / t_after,
                saved_s_per_flop=saved,
                layers=credited,
                split=split,
                speedup_interval=speedup_interval,
                within_noise=unc.contains(speedup_interval, 1.0),
                changes=changes,
                declared=declared,
                contradiction=contradiction(declared, changes, credited, saved),
            )
        )
    return steps
