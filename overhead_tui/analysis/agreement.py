"""Two methods side by side: the model's share of each layer against perf's, with intervals and a
verdict (agree, disagree, not separable).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from overhead_tui.summary.breakdown import Agreement, AgreementEntry, Breakdown
from overhead_tui.summary.codec import Interval
from overhead_tui.summary.profile import (
    BackendResult,
    CallgrindResult,
    PerfResult,
    ProfileRecord,
    PyspyResult,
    ScaleneResult,
)
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


LINE_GAP = 0.2
"""Two profilers' shares of the same source line further apart than this disagree."""
WHY_LINES_DIFFER = (
    "py-spy reads the stack from outside the process at any instruction, so each line gets the "
    "time spent in it; Scalene's CPU samples arrive as signals, which CPython handles only at "
    "its eval-breaker checks (loop back-edges and calls), so time spent on a loop's body line "
    "is charged to the line that jumps back (the loop header); both see only the main thread"
)
"""Why py-spy's and Scalene's per-line shares differ on a loop (sampling method and thread)."""


def _pyspy_lines(part: PyspyResult) -> dict[int, float]:
    """{line number: share of py-spy's samples ending there} from its ``frame (file:line)``."""
    lines: dict[int, float] = {}
    for row in part.top_frames:
        match = re.search(r":(\d+)\)$", row.frame)
        if match:
            line = int(match.group(1))
            lines[line] = lines.get(line, 0.0) + row.self_share
    return lines


def lines_disagreement(profile: ProfileRecord | None) -> str | None:
    """When py-spy and Scalene put a source line's share more than :data:`LINE_GAP` apart:
    "py-spy: line 40 78 %, 39 20 %; Scalene: line 39 53 %, 40 46 %" and
    :data:`WHY_LINES_DIFFER`; None when they agree or one of them did not run."""
    pyspy = profile.backends.get("pyspy") if profile else None
    scalene = profile.backends.get("scalene") if profile else None
    if not isinstance(pyspy, PyspyResult) or not isinstance(scalene, ScaleneResult):
        return None
    sampled = _pyspy_lines(pyspy)
    charged = {x.lineno: x.python + x.native for x in scalene.lines if x.lineno is not None}
    if not sampled or not charged:
        return None
    if all(
        abs(sampled.get(k, 0.0) - charged.get(k, 0.0)) <= LINE_GAP for k in {*sampled, *charged}
    ):
        return None

    def top(shares: dict[int, float]) -> str:
        best = sorted(shares.items(), key=lambda x: -x[1])[:2]
        return ", ".join(f"{k} {v:.0%}" for k, v in best)

    return f"py-spy: line {top(sampled)}; Scalene: line {top(charged)}. {WHY_LINES_DIFFER}"


def attach_agreement(result: ScenarioResult) -> None:
    """Set what the rung's profiles add to its derived figures (after profiling too): the
    breakdown's ``agreement`` with perf, the compiled quantities' callgrind count, and the
    profile's ``lines_note`` from py-spy and Scalene."""
    if result.profile is not None:
        note = lines_disagreement(result.profile)
        result.profile = replace(result.profile, lines_note=note)
    counted = result.profile.backends.get("callgrind") if result.profile else None
    compiled = result.breakdown.compiled if result.breakdown is not None else None
    if (
        result.breakdown is not None
        and compiled is not None
        and isinstance(counted, CallgrindResult)
        and counted.ok
    ):
        # the compiled model's second count of instructions (a whole call, overheads included)
        second = replace(
            compiled,
            callgrind_instructions_per_fma=counted.instructions_per_fma,
            callgrind_n=counted.n,
        )
        result.breakdown = replace(result.breakdown, compiled=second)
    perf = result.profile.backends.get("perf") if result.profile else None
    if result.breakdown is not None and perf:
        agreed = agreement(result.breakdown, perf)
        result.breakdown = replace(result.breakdown, agreement=agreed)
