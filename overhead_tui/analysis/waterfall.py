"""The waterfall: the ladder as successive removals of layers, each step's speed-up credited to the
layers it removes.
"""

from __future__ import annotations

import itertools

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.summary.breakdown import WaterfallStep
from overhead_tui.summary.records import RunSummary


def waterfall(summary: RunSummary) -> list[WaterfallStep]:
    """Steps between consecutive ok rungs: speedup per flop and the time saved per layer.

    Each :class:`~overhead_tui.summary.breakdown.WaterfallStep`: ``from_``, ``to``,
    ``speedup``, ``saved_s_per_flop``, ``layers`` {layer: s/flop}, ``split``,
    ``speedup_interval`` [low, high] (from both rungs' IQRs), ``within_noise``: the speedup's
    interval contains 1 (the step may be no step at all).
    """
    rungs = [r for r in sorted(summary.scenarios, key=lambda r: r.rung) if r.has_speed]
    steps = []
    for before, after in itertools.pairwise(rungs):
        assert before.median_s is not None and after.median_s is not None
        t_before = before.median_s / before.flops
        t_after = after.median_s / after.flops
        saved = t_before - t_after
        removed = list(after.removes) or ["other"]
        shares = before.breakdown.layers if before.breakdown else {}
        weights = {x: shares.get(x, 0.0) for x in removed}
        total = sum(w for w in weights.values() if w > 0)
        split = "by modelled share"
        if not after.removes:
            weights, total = {"other": 1.0}, 1.0
            split = "nothing declared removed"
        elif total < MIN_CREDIT_SHARE:  # the model does not see these layers: split equally
            weights, total = dict.fromkeys(removed, 1.0), float(len(removed))
            split = "equally (not modelled)"
        credited = {x: saved * max(w, 0.0) / total for x, w in weights.items()}
        low, high = unc.ratio(
            unc.timing_interval(before.median_s, before.iqr_s),
            unc.timing_interval(after.median_s, after.iqr_s),
        )
        per_flop = after.flops / before.flops  # the speedup is per flop
        speedup_interval = (low * per_flop, high * per_flop)
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
            )
        )
    return steps


MIN_CREDIT_SHARE = 0.05
"""Below this modelled share (of the earlier rung) for all removed layers together, the
waterfall splits a step's saving equally among them instead of by share."""
