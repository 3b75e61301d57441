"""The tables the CLI prints on stdout (a run's ladder, a sweep's points, the scenarios, the
profiler backends), as text."""

from __future__ import annotations

from overhead_tui.analysis.roofline import roofline
from overhead_tui.analysis.span import span
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.present.error_text import headline
from overhead_tui.present.format import (
    aligned_lines,
)
from overhead_tui.present.ladder_rows import (
    below_dense_note,
    dense_reference_note,
    ladder_headers,
    ladder_row,
    skipped_for_dtype,
)
from overhead_tui.present.span_text import span_text
from overhead_tui.present.sweep_rows import point_cell, sweep_rows
from overhead_tui.profilers.capabilities import Capability
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops
from overhead_tui.summary.vocabulary import rate_unit


def render_table(summary: RunSummary) -> str:
    """The ladder as an aligned plain-text table, with warnings and errors below it."""
    headers = ladder_headers(summary.settings.dtype)
    grouped, failed = skipped_for_dtype(summary)
    shown = [r for r in summary.scenarios if r.name not in grouped]
    python = span(summary).python
    dtype = summary.settings.dtype
    lines = aligned_lines([headers, *(ladder_row(r, python, dtype) for r in shown)], {1, 8})
    lines += [f"  {line}" for line in failed]
    lines += [
        f"  {r.name}: ! {'; '.join(r.warnings)}" for r in shown if r.status == "ok" and r.warnings
    ]
    if (faster := below_dense_note(summary)) is not None:
        lines.append(f"  ({faster})")
    if grouped:
        lines.append(
            f"  {len(grouped)} {'rung' if len(grouped) == 1 else 'rungs'} skipped: "
            f"{'it does' if len(grouped) == 1 else 'they do'} not support {summary.settings.dtype} "
            f"(see `overhead-tui list` for each rung's dtypes)"
        )
    note = dense_reference_note(summary)
    if note is not None:
        lines.append(f"  ({note})")
    if (line := span_text(span(summary))) is not None:
        lines.append(f"  {line}")
    lines += [f"  {line}" for line in peak_lines(summary)]
    for warning in summary.machine.limit_warnings or ():
        lines.append(f"  machine: ! {warning}")
    return "\n".join(lines)


def render_sweep_table(summary: RunSummary) -> str:
    """GFLOP/s per scenario (rows) and n (columns) as aligned text: ``!`` marks an unstable
    point, a failed point shows its status, a size not run ``—``; the last column says why a
    scenario stopped before the last size.  Failed points' errors are listed below."""
    sizes: list[int] = list(summary.sweep.sizes) if summary.sweep else []
    rows = sweep_rows(summary)
    header = ["GFLOP/s", *(f"n={n}" for n in sizes), "stopped"]
    table = [header]
    for row in rows:
        cells = [point_cell(row.points.get(n)) for n in sizes]
        table.append([row.label, *cells, row.stopped or ""])
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i in (0, len(header) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()
        for cells in table
    ]
    for row in rows:
        for n, point in sorted(row.points.items()):
            if point.status != "ok":
                lines.append(
                    f"  {row.scenario} at n={n}: {point.status} — {headline(point.error or '')}"
                )
    if any(p.warnings for row in rows for p in row.points.values()):
        lines.append("  ! unstable timing (noise, CPU contention): see points/<scenario>-<n>/")
    return "\n".join(lines)


def scenario_lines(specs: list[ScenarioSpec]) -> list[str]:
    """``overhead-tui list``: one block per scenario (rung, name, title; n, dtypes; layers)."""
    lines = []
    width = max((len(spec.name) for spec in specs), default=0)  # the names in one column
    for spec in specs:
        tag = "  [dense kernel]" if spec.dense_kernel else ""
        lines += [
            f"{spec.rung:>3}  {spec.name:<{width}}  {spec.title}{tag}",
            f"     n = {spec.default_size} (max {spec.max_size}), dtypes {', '.join(spec.dtypes)}",
            f"     layers:  {', '.join(spec.layers) or '-'}",
            f"     removes: {', '.join(spec.removes) or '-'}",
            f"     sets:    {', '.join(spec.sets) or '-'}",
        ]
    return lines


def capability_lines(capabilities: list[Capability]) -> list[str]:
    """``overhead-tui doctor``: one line per profiler backend, and the fix of a missing one."""
    lines = []
    for cap in capabilities:
        if cap.ok:
            lines.append(f"{cap.name:<10} ok           {cap.version or '?':<10} {cap.path or ''}")
        else:
            lines.append(f"{cap.name:<10} unavailable  {cap.version or '':<10} {cap.reason}")
            lines.append(f"{'':<10} fix: {cap.fix}")
    return lines


def peak_lines(summary: RunSummary) -> list[str]:
    """For a lower-precision run, each measured rung against its own family's roof (the
    roofline's attainable figure: ``vdpbf16ps`` against AVX-512 BF16, AMX tiles against AMX):
    ``c_amx_tiles: 15.6 % of its roof (3,480 GFLOP/s, precision_peak)``; none for float64 and
    float32, whose × dense says it."""
    if summary.settings.dtype in ("float64", "float32"):
        return []
    unit = rate_unit(summary.settings.dtype)
    return [
        f"{p.name}: {p.of_attainable:.1%} of its roof ({fmt_gflops(p.attainable)} {unit}, "
        "precision_peak)"
        for p in roofline(summary).points
        if p.of_attainable is not None and p.attainable is not None
    ]
