"""The Markdown report's sections on the why: each rung's prediction beside its measurement,
its breakdown by layer, the model against perf; and :func:`section`, the layout every section
of the report (``export.markdown``) shares."""

from __future__ import annotations

from collections.abc import Sequence

from overhead_tui.present.format import (
    compiled_text,
    fmt_cost,
    fmt_share,
    markdown_table,
    unstable_explained,
)
from overhead_tui.summary.layers import LAYERS, SHORT_LABELS
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_percent


def why_sections(summary: RunSummary) -> list[list[str]]:
    """The why's sections of ``summary``'s report, in order (an empty one: nothing to say)."""
    return [_breakdowns(summary), _predictions(summary), _agreement(summary)]


def section(
    title: str, header: str, rows: Sequence[Sequence[str]], *paragraphs: list[str]
) -> list[str]:
    """A section: its ``##`` heading, a table of ``rows`` under ``header``'s columns
    (``a | b: | c``, ``NAME:`` right-aligned) and the ``paragraphs`` after it, a blank line
    before each (empty ones left out); nothing at all without rows."""
    if not rows:
        return []
    lines = [f"## {title}", "", *markdown_table(header.split(" | "), rows)]
    for paragraph in paragraphs:
        lines += ["", *paragraph] if paragraph else []
    return lines


def _predictions(summary: RunSummary) -> list[str]:
    """Each rung's prediction beside its measurement, and why its probes may not price it."""
    pairs = [(r.name, b) for r in summary.scenarios if (b := r.breakdown)]
    return section(
        "Predicted and measured (ns per multiply-add)",
        "scenario | predicted: | measured:",
        [
            [
                name,
                fmt_cost(b.predicted_ns_per_fma, b.predicted_interval),
                fmt_cost(b.measured_ns_per_fma, b.measured_interval),
            ]
            for name, b in pairs
            if b.predicted_ns_per_fma
        ],
        [
            "Predicted from the counts and the probes alone; [low–high]: the probes' ranges, "
            "the middle half of the samples."
        ],
        [f"- {name}: {b.probe_doubt}" for name, b in pairs if b.probe_doubt],
    )


def _breakdowns(summary: RunSummary) -> list[str]:
    rows = [r for r in summary.scenarios if r.breakdown]
    if not rows:
        return []
    layers = [x for x in LAYERS if any(x in r.breakdown.layers for r in rows if r.breakdown)]
    cells = []
    for r in rows:
        b = r.breakdown
        assert b is not None
        shares, intervals = b.layers, b.intervals
        labelled = b.labelled_rest or 0.0
        explained = fmt_share(b.explained, b.explained_interval).strip() + (
            f" + {fmt_percent(labelled)} labelled" if labelled > 0.0005 else ""
        )
        if unstable_explained(r):  # the CV beside it: the share moves with the time
            explained += f" (unstable: CV {fmt_percent(r.cv)})"
        cells.append(
            [
                r.name,
                explained,
                *(
                    fmt_share(shares[x], intervals.get(x)).strip() if x in shares else ""
                    for x in layers
                ),
            ]
        )
    footnote = [
        "Seconds per layer = exact events per multiply-add × probe unit cost; "
        "`other` = measured − explained (negative when the model over-explains). "
        "[low–high]: bounds propagated from each probe's per-process range and the middle "
        "half of the rung's samples (interval arithmetic); interpreted unit costs are scaled "
        "to the speed of the rung's own worker (its reference-loop timing beside the "
        "samples).  Compiled rungs: the largest in-core bound of their hot loop (issue, FP, "
        "loop-carried chain, from their own assembly at measured rates and latencies) plus "
        "their time beyond the same kernel's with data in L1 (memory).",
    ]
    compiled = [
        [f"- {r.name}: " + "; ".join(compiled_text(r.breakdown.compiled))]
        for r in rows
        if r.breakdown and r.breakdown.compiled
    ]
    return section(
        "Breakdown (model: share of the median time)",
        " | ".join(["scenario", "explained:", *(f"{SHORT_LABELS.get(x, x)}:" for x in layers)]),
        cells,
        footnote,
        *compiled,
    )


def _agreement(summary: RunSummary) -> list[str]:
    rows = [
        [
            r.name,
            layer,
            fmt_share(e.model, e.model_interval) if e.model is not None else "—",
            fmt_share(e.perf, e.perf_interval),
            e.verdict,
        ]
        for r in summary.scenarios
        if r.breakdown and r.breakdown.agreement
        for layer, e in r.breakdown.agreement.layers.items()
    ]
    return section(
        "Model and perf side by side",
        "scenario | layer | model: | perf: | verdict",
        rows,
        [
            "perf's interval: ± 2 binomial standard errors of its samples; agree when the "
            "intervals overlap; not separable: perf books list subscripts and type dispatch "
            "inside the eval loop on interpreter_dispatch (compare the merged row)."
        ],
    )
