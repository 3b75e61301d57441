"""A waterfall step (``analysis.waterfall``) as text: what it says first, its credits with their
intervals, what is within noise and the later rung's declaration; the Waterfall screen and the
Markdown report draw these (no UI imports).  Amounts are ns per flop."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from overhead_tui.summary.breakdown import WaterfallStep
from overhead_tui.summary.layers import SHORT_LABELS
from overhead_tui.summary.units import fmt_number

NOT_CREDITED = "not credited"
"""The key of the line that adds up the changes within noise (no layer; labelled ``sum``)."""
WITHIN_NOISE = "within noise"
NOISE_HEADER = "within noise, not credited:"
"""Said before the first line of a change within noise."""


def fmt_bounds(interval_s: Sequence[float]) -> str:
    """An interval of a change in s per flop as ns per flop: ``[1.15, 12.1]`` (signed bounds,
    so a comma between them)."""
    return f"[{fmt_number(interval_s[0] * 1e9)}, {fmt_number(interval_s[1] * 1e9)}]"


def fmt_change(value_s: float) -> str:
    """A change in s per flop as ns per flop: ``6.97`` (its interval: :func:`fmt_bounds`)."""
    return fmt_number(value_s * 1e9)


@dataclass(frozen=True)
class CreditLine:
    """One line of a step's credits."""

    key: str
    """A layer, ``other`` (unexplained) or :data:`NOT_CREDITED`."""
    label: str
    """``dispatch``, ``unexplained``, ``sum`` (of the changes within noise) …"""
    amount: str
    """``6.97`` (ns per flop); "" for a layer's change within noise (not credited)."""
    bounds: str = ""
    """Its interval, ``[1.15, 12.1]`` ("" when the step has none: an older file)."""
    within_noise: bool = False
    """A layer's change within noise, or the line adding those up."""

    @property
    def text(self) -> str:
        """``dispatch 6.97 [1.15, 12.1]``, ``dispatch [-7.04, 7.09]`` (within noise)."""
        return " ".join(x for x in (self.label, self.amount, self.bounds) if x)

    @property
    def short(self) -> str:
        """The amount alone, for narrow views: ``6.97``, ``noise``."""
        return self.amount or "noise"


def step_lead(step: WaterfallStep) -> str:
    """What a step within noise says before any credit: ``within noise``; "" for a step
    outside it (or of an older file that did not tell)."""
    return WITHIN_NOISE if step.within_noise else ""


def saved_text(step: WaterfallStep) -> str:
    """The step's saving with its interval: ``saved 0.208 [-1.01, 1.43]``."""
    return " ".join(
        x for x in ("saved", fmt_change(step.saved_s_per_flop), _bounds(step.saved_interval)) if x
    )


def credit_lines(step: WaterfallStep) -> list[CreditLine]:
    """The credited layers, largest first, the unexplained rest after them; then each layer
    whose change is within noise (not credited: its interval, no amount) and, when there is
    one, the line adding those changes up (:data:`NOT_CREDITED`), so the lines always account
    for the whole saving.  Views say :data:`NOISE_HEADER` before the first within noise."""
    intervals = step.change_intervals
    credited = sorted(
        ((k, v) for k, v in step.layers.items() if k != "other"), key=lambda kv: -abs(kv[1])
    )
    if "other" in step.layers:
        credited.append(("other", step.layers["other"]))
    lines = [
        CreditLine(k, SHORT_LABELS.get(k, k), fmt_change(v), _bounds(intervals.get(k)))
        for k, v in credited
    ]
    for k in step.noise_layers:
        bounds = _bounds(intervals.get(k))
        lines.append(CreditLine(k, SHORT_LABELS.get(k, k), "", bounds, True))
    if step.noise_layers:
        amount, bounds = fmt_change(step.noise_s_per_flop), _bounds(step.noise_interval)
        lines.append(CreditLine(NOT_CREDITED, "sum", amount, bounds, True))
    return lines


def _bounds(interval_s: Sequence[float] | None) -> str:
    """Its interval, "" without one or when it has no width (an exact figure)."""
    return fmt_bounds(interval_s) if interval_s and interval_s[0] != interval_s[1] else ""


def credits_text(step: WaterfallStep) -> str:
    """The lead and the credits on one line (a report's table cell): ``**within noise**: saved
    0.2 [-1, 1.4]; dispatch 6.97 [1.15, 12.1]; within noise, not credited: subscripts [-0.173,
    0.313], sum 0.1 [-0.2, 0.4]``."""
    lead = step_lead(step)
    lines = credit_lines(step)
    credited = [x.text for x in lines if not x.within_noise]
    noise = [x.text for x in lines if x.within_noise]
    parts = ([f"**{lead}**: {saved_text(step)}"] if lead else []) + credited
    if noise:
        parts.append(f"{NOISE_HEADER} {', '.join(noise)}")
    return "; ".join(parts)


def declared_text(step: WaterfallStep) -> str:
    """The later rung's declared ``REMOVES`` as shown beside the measured credits, with the
    contradiction when the measurements do not bear it out."""
    if step.contradiction:
        return step.contradiction
    if step.declared:
        return "declared: " + ", ".join(SHORT_LABELS.get(x, x) for x in step.declared)
    return ""


NOTE = (
    "[low, high]: a change's interval, from its two ends' (unexplained, the measured time minus "
    "the model: from both); within noise, not credited: a change whose interval includes 0, "
    "and the sum of those"
)
"""What the credits mean, said under the views' waterfall tables."""
