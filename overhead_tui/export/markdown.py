"""A readable Markdown report to paste into an issue or a blog post."""

from __future__ import annotations

from overhead_tui.analysis.paper import compare, load_table
from overhead_tui.analysis.roofline import roofline
from overhead_tui.analysis.span import span
from overhead_tui.export.base import Exporter
from overhead_tui.export.report_why import section, why_sections
from overhead_tui.machine.reference import peak_of, reference_machines, times_below
from overhead_tui.present.format import (
    compiles,
    machine_line,
    markdown_table,
    paper_row,
    roofline_row,
)
from overhead_tui.present.ladder_rows import (
    LADDER_HEADERS,
    dense_reference_note,
    ladder_headers,
    ladder_row,
)
from overhead_tui.present.span_text import span_text
from overhead_tui.present.waterfall_text import NOTE, credits_text, declared_text
from overhead_tui.profilers.profile import SLOWDOWN_NOISE, baseline_source_text, slowdown_text
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops, fmt_number, fmt_percent, fmt_ratio, fmt_seconds


def _pooled_note(summary: RunSummary) -> str:
    """The rungs whose samples came from several worker processes (none: nothing)."""
    pooled = [r for r in summary.scenarios if r.sample_processes > 1]
    if not pooled:
        return ""
    processes = max(r.sample_processes for r in pooled)
    return (
        f"; the samples of {', '.join(r.name for r in pooled)} are pooled from up to "
        f"{processes} worker processes each (a loop's speed depends on its process's memory "
        "layout)"
    )


def _environment_line(summary: RunSummary) -> list[str]:
    """The variables steering BLAS, OpenMP, numba and MKL, when any was set."""
    env = summary.machine.environment
    if not env:
        return []
    text = ", ".join(f"`{k}={v}`" for k, v in env.items())
    return [f"- **Environment** (steers BLAS, OpenMP, numba, MKL): {text}"]


class MarkdownExporter(Exporter):
    """Machine, settings, the ladder table, and notes on unstable, invalid and failed rungs."""

    output_file_extensions = (".md", ".markdown")

    def render(self, summary: RunSummary) -> str:
        s = summary.settings
        lines = [
            "# overhead-tui: matrix-multiply ladder",
            "",
            f"- **Machine:** {machine_line(summary.machine)}"
            + (
                f" (BLAS from {summary.machine.blas.source})" if summary.machine.blas.source else ""
            ),
            *_environment_line(summary),
            f"- **Settings:** dtype {s.dtype}, n = {s.size or 'each scenario default'}, "
            f"{s.repeats} repeats, samples ≥ {s.min_sample_s:g} s, seed {s.seed}, "
            f"timeout {s.timeout_s:g} s" + _pooled_note(summary),
            f"- **Run:** {summary.created}"
            + (f", {summary.wall_s:.1f} s wall" if summary.wall_s is not None else "")
            + ("" if summary.finished else " (**interrupted**: unfinished rungs are skipped)"),
            f"- **Tool:** {summary.tool.get('name', 'overhead-tui')} "
            f"{summary.tool.get('version', '')}",
            "",
            *markdown_table(
                [
                    name if h in ("scenario", "status") else f"{name}:"
                    for name, h in zip(ladder_headers(s.dtype), LADDER_HEADERS, strict=True)
                ],
                [ladder_row(r, span(summary).python, s.dtype) for r in summary.scenarios],
            ),
            *(["", f"**{line}**"] if (line := span_text(span(summary))) else []),
        ]
        sections = (
            self._notes(summary),
            self._probes(summary),
            *why_sections(summary),
            self._profiles(summary),
            self._waterfall(summary),
            self._paper(summary),
            self._roofline(summary),
            self._shapes(summary),
        )
        for part in sections:  # an empty section leaves no blank lines behind
            if part:
                lines += ["", *part]
        return "\n".join(lines).rstrip() + "\n"

    @staticmethod
    def _roofline(summary: RunSummary) -> list[str]:
        machine = summary.machine
        if not machine.limits:
            return MarkdownExporter._reference(summary)
        model = roofline(summary)
        bandwidth = machine.bandwidth_gbs
        lines = [
            "## Machine limits and roofline",
            "",
            f"- CPU: {machine.cpu_model} ({machine.microarchitecture or 'unknown'}; table row: "
            f"{machine.table_source or '—'}); {fmt_number(machine.effective_cores)} effective "
            f"cores (affinity ∩ cgroup quota); clock nominal "
            f"{fmt_number(machine.clock_ghz.get('nominal'))} GHz, measured "
            f"{fmt_number(machine.clock_ghz.get('measured'))} GHz",
        ]
        for dtype, peak in machine.peak_gflops.items():
            ratio = f" = {peak.ratio:.2f} × theoretical" if peak.ratio else ""
            lines.append(
                f"- {dtype}: theoretical {peak.formula or '—'}; measured "
                f"{fmt_gflops(peak.measured)} GFLOP/s{ratio} "
                f"({peak.measured_by or '—'}); one core {fmt_gflops(peak.one_core)}"
                + (f" — {peak.warning}" if peak.warning else "")
            )
        lines += [
            f"- Memory bandwidth (STREAM triad): one core {fmt_number(bandwidth.get('one_core'))}"
            f" GB/s, all cores {fmt_number(bandwidth.get('all_cores'))} GB/s; ridge point "
            f"{fmt_number(model.ridge_point)} flop/B",
            "- Ceilings: "
            + "; ".join(f"{c.label} {fmt_gflops(c.gflops)} GFLOP/s" for c in model.ceilings),
            *(f"- Warning: {w}" for w in machine.limit_warnings),
            "",
            *markdown_table(
                [
                    "#:",
                    "scenario",
                    "n:",
                    "intensity (flop/B):",
                    "GFLOP/s:",
                    "attainable:",
                    "of attainable:",
                    "% of peak:",
                    "roof",
                ],
                [  # the roofline row with the rung's share of the peak before its roof
                    [*cells[:-1], fmt_percent(result.pct_peak if result else None), cells[-1]]
                    for p in model.points
                    for cells, result in [(roofline_row(p), summary.scenario(p.name))]
                ],
            ),
            "",
            "Intensity = 2n³ flops / 3n²·itemsize bytes (minimum traffic); attainable = "
            "min(measured peak, intensity × bandwidth) (Williams et al., CACM 2009).",
        ]
        return lines + MarkdownExporter._reference(summary)

    @staticmethod
    def _shapes(summary: RunSummary) -> list[str]:
        """A batch sweep (``overhead-tui shapes``): table, crossings, reference predictions."""
        if not summary.shapes:
            return []
        from overhead_tui.export.shapes import shapes_markdown_lines
        from overhead_tui.machine.reference import reference_machines

        return shapes_markdown_lines(summary, reference_machines()[0])

    @staticmethod
    def _reference(summary: RunSummary) -> list[str]:
        dtype = summary.settings.dtype
        rungs = [
            r
            for r in (summary.scenario("python_naive"), summary.dense)
            if r is not None and r.has_speed and r.gflops
        ]
        available, problem = reference_machines()
        machines = [m for m in available if times_below(1.0, m, dtype)]
        if not rungs or not machines:
            return []
        return [
            "",
            f"### Against reference hardware ({dtype} peaks, vendor figures)",
            "",
            *([f"Note: {problem}.", ""] if problem else []),
            *markdown_table(
                ["machine", "peak GFLOP/s:", *(f"{r.name} is below by:" for r in rungs)],
                [
                    [
                        m.name,
                        fmt_gflops(peak_of(m, dtype)),
                        *(fmt_ratio(times_below(r.gflops or 0.0, m, dtype)) for r in rungs),
                    ]
                    for m in machines
                ],
            ),
        ]

    @staticmethod
    def _paper(summary: RunSummary) -> list[str]:
        rows = compare(summary)
        if not any(r.our_speedup for r in rows[1:]):
            return []
        table = load_table()
        return [
            f"## Beside the published ladder ({table['source']})",
            "",
            f"Their n = {table['n']}, {table['dtype']}, on {table['machine']} (peak "
            f"{table['peak_gflops']:g} GFLOP/s); ours {summary.settings.dtype}, per flop, each "
            f"rung at its own n (scaled, not measured at {table['n']}).",
            "",
            *markdown_table(
                [
                    "#:",
                    "their step",
                    "their speedup:",
                    "their GFLOP/s:",
                    "our rung",
                    "our speedup:",
                    "our GFLOP/s:",
                ],
                [paper_row(r) for r in rows],
            ),
        ]

    @staticmethod
    def _probes(summary: RunSummary) -> list[str]:
        rows = []
        for name, p in sorted(summary.probes.items()):
            value = fmt_number(p.value) if p.value is not None else "failed"
            if p.value is not None and p.value <= 0:
                value = f"below resolution ({fmt_number(p.value)})"
            spread = fmt_percent(p.spread) if p.spread is not None else "—"
            found = p.interval or ([min(p.samples), max(p.samples)] if p.samples else None)
            interval = (
                f"[{fmt_number(found[0])}–{fmt_number(found[1])}] ({len(p.samples or [])})"
                if found
                else "—"
            )
            rows.append([name, value, interval, p.unit, spread])
        return section(
            "Probes (unit costs)",
            "probe | value: | interval (processes): | unit | run-to-run spread:",
            rows,
            [
                "Interval: the range of the per-process values, a distribution-free interval "
                "for the median (coverage 1 − 2·0.5ⁿ for n processes: 75 % at 3, 98 % at 7)."
            ],
        )

    @staticmethod
    def _profiles(summary: RunSummary) -> list[str]:
        profiles = [(r.name, r.profile) for r in summary.scenarios if r.profile]
        parts = [(r, name, part) for r, p in profiles for name, part in p.backends.items()]
        sources = {baseline_source_text(p) for _, p in profiles if p.backends}
        return section(
            "Profilers",
            "scenario | profiler | status | under the profiler",
            [
                [r, name, part.status, slowdown_text(part.slowdown) or "—"]
                for r, name, part in parts
            ],
            [f"- {r}, {name}: {note}" for r, name, part in parts for note in part.notes],
            [
                "Slowdown: the profiled time per call over the unprofiled baseline's ("
                + "; ".join(sorted(sources))
                + f"); below 1 + {SLOWDOWN_NOISE * 100:.0f} % it is within noise: a profiler "
                "never makes the kernel faster. —: callgrind runs at a smaller n, no slowdown."
            ],
        )

    @staticmethod
    def _waterfall(summary: RunSummary) -> list[str]:
        rows = []
        total = 1.0
        for step in summary.waterfall:
            total *= step.speedup
            credited = credits_text(step)
            if step.split and step.split not in ("by modelled share", "by measured change"):
                credited += f" ({step.split})"
            bounds = step.speedup_interval
            noise = (
                ("**within noise** " if step.within_noise else "")
                + f"[{fmt_ratio(bounds[0])}–{fmt_ratio(bounds[1])}]"
                if bounds
                else "—"
            )
            rows.append(
                [
                    step.from_,
                    step.to,
                    fmt_ratio(step.speedup),
                    fmt_ratio(total),
                    credited,
                    declared_text(step),
                    noise,
                ]
            )
        return section(
            "Waterfall (time per flop saved, credited from each layer's measured change)",
            "from | to | speedup: | cumulative: | credited to (ns/flop) | declared | noise",
            rows,
            [
                f"Credited to, in ns per flop: {NOTE}. declared: the later rung's REMOVES, shown, "
                "never used. noise: the speedup's bounds from both rungs' middle half of samples; "
                "within noise when they include 1×."
            ],
        )

    @staticmethod
    def _notes(summary: RunSummary) -> list[str]:
        notes = []
        reference = dense_reference_note(summary)
        if reference is not None:
            notes.append(f"- {reference[0].upper()}{reference[1:]}.")
        elif summary.dense is not None:
            notes.append(
                f"- Dense kernel (× dense = 1): **{summary.dense.name}** "
                f"({summary.dense.title}), n = {summary.dense.n}."
            )
        for r in summary.scenarios:
            if r.status != "ok":
                notes.append(f"- **{r.name}**: {r.status} — {r.error or 'no reason given'}")
            elif r.warnings:
                notes.append(f"- **{r.name}**: {'; '.join(r.warnings)}")
            if r.status == "ok" and r.compile_s is not None and r.compile_s > 0.05:
                notes.append(
                    f"- {r.name}: "
                    + (
                        "JIT compile / first call"
                        if compiles(r)
                        else "first call (nothing compiled)"
                    )
                    + f" {fmt_seconds(r.compile_s)}"
                    " (excluded from the samples)"
                )
        if not notes:
            return []
        return [
            "## Notes",
            "",
            *notes,
            "",
            "× dense = time per flop divided by the dense kernel's; flops = 2·n³.",
        ]
