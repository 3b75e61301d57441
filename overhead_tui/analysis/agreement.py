"""Two methods side by side: the model's share of each layer against perf's, with intervals and a
verdict (agree, disagree, not separable).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from overhead_tui.summary.breakdown import Agreement, AgreementEntry, Breakdown
from overhead_tui.summary.codec import Interval
from overhead_tui.summary.profile import BackendResult, PerfResult
from overhead_tui.summary.records import ScenarioResult

NOT_SEPARABLE = {
    "container_access": "interpreter_dispatch",
    "dynamic_dispatch": "interpreter_dispatch",
}
"""Layers perf cannot split from another: a specialised list subscript or an unspecialised
instruction's type dispatch runs inside ``_PyEval_EvalFrameDefault`` (inlined), so its samples
land on the eval loop.  They are compared merged with that layer."""


def _perf_interval(share: float, samples: int | None) -> Interval:
    """A sampled share ± 2 binomial standard errors (about 95 %), or the point value."""
    if not samples:
        return (share, share)
    half = 2.0 * (max(share * (1.0 - share), 0.0) / samples) ** 0.5
    return (max(0.0, share - half), min(1.0, share + half))


def _overlap(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def agreement(b: Breakdown, perf: BackendResult) -> Agreement | None:
    """The model's and perf's share of each layer side by side, with a verdict.

    Args:
        b: the rung's model breakdown.
        perf: the perf backend's result in the rung's profile (a ``PerfResult`` when ok:
            samples, layers {layer: share}).

    Returns an :class:`~overhead_tui.summary.breakdown.Agreement`: per layer the model's and
    perf's share with their intervals and a verdict ``agree`` (the intervals overlap),
    ``disagree``, or ``not separable`` (a layer perf books on another, see
    :data:`NOT_SEPARABLE`; the merged pair ``A+B`` gets its own verdict).  None without perf
    layers.
    """
    if perf.status != "ok" or not isinstance(perf, PerfResult) or not perf.layers:
        return None
    measured = perf.layers
    raw = str(perf.samples or "")
    samples = int(raw) if raw.isdigit() else None
    model = {k: v for k, v in b.layers.items() if k != "other"}
    intervals = b.intervals

    def entry(
        m: float | None, m_int: Sequence[float] | None, p: float | None, verdict: str = ""
    ) -> AgreementEntry:
        model_interval = (m_int[0], m_int[1]) if m_int else ((m, m) if m is not None else None)
        p_int = _perf_interval(p, samples) if p is not None else None
        agree = model_interval and p_int and _overlap(model_interval, p_int)
        return AgreementEntry(
            model=m,
            model_interval=model_interval,
            perf=p,
            perf_interval=p_int,
            verdict=verdict or ("agree" if agree else "disagree"),
        )

    layers: dict[str, AgreementEntry] = {}
    for layer in sorted(set(model) | set(measured)):
        separable = layer not in NOT_SEPARABLE or layer not in model
        layers[layer] = entry(
            model.get(layer),
            intervals.get(layer),
            measured.get(layer, 0.0),
            "" if separable else "not separable",
        )
    for layer, host in NOT_SEPARABLE.items():
        if layer in model and host in model:
            both = [intervals.get(x) or (model[x], model[x]) for x in (layer, host)]
            merged = entry(
                model[layer] + model[host],
                (both[0][0] + both[1][0], both[0][1] + both[1][1]),
                measured.get(layer, 0.0) + measured.get(host, 0.0),
            )
            layers[f"{host}+{layer}"] = merged
            if host in layers:
                layers[host] = replace(layers[host], verdict="not separable")
    return Agreement(source="perf", samples=samples, layers=layers)


def attach_agreement(result: ScenarioResult) -> None:
    """Set the breakdown's ``agreement`` from the rung's perf profile (after profiling too)."""
    perf = result.profile.backends.get("perf") if result.profile else None
    if result.breakdown is not None and perf:
        agreed = agreement(result.breakdown, perf)
        result.breakdown = replace(result.breakdown, agreement=agreed)
