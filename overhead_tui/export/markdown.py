"""A readable Markdown report to paste into an issue or a blog post."""

from __future__ import annotations

from overhead_tui.export.base import Exporter
from overhead_tui.format import LADDER_HEADERS, fmt_seconds, ladder_row, machine_line
from overhead_tui.model import RunSummary


class MarkdownExporter(Exporter):
    """Machine, settings, the ladder table, and notes on unstable, invalid and failed rungs."""

    output_file_extensions = (".md", ".markdown")

    def render(self, summary: RunSummary) -> str:
        s = summary.settings
        lines = [
            "# overhead-tui: matrix-multiply ladder",
            "",
            f"- **Machine:** {machine_line(summary.machine)}",
            f"- **Settings:** dtype {s.dtype}, n = {s.size or 'each scenario default'}, "
            f"{s.repeats} repeats, seed {s.seed}, timeout {s.timeout_s:g} s",
            f"- **Run:** {summary.created}"
            + (f", {summary.wall_s:.1f} s wall" if summary.wall_s is not None else "")
            + ("" if summary.finished else " (**interrupted**: unfinished rungs are skipped)"),
            f"- **Tool:** {summary.tool.get('name', 'overhead-tui')} "
            f"{summary.tool.get('version', '')}",
            "",
            "| " + " | ".join(LADDER_HEADERS) + " |",
            "|"
            + "|".join("---:" if h not in ("scenario", "status") else "---" for h in LADDER_HEADERS)
            + "|",
        ]
        lines += ["| " + " | ".join(ladder_row(r)) + " |" for r in summary.scenarios]
        lines += ["", *self._notes(summary)]
        return "\n".join(lines).rstrip() + "\n"

    @staticmethod
    def _notes(summary: RunSummary) -> list[str]:
        notes = []
        if summary.dense is None:
            notes.append("- The dense kernel did not run successfully: no × dense column.")
        for r in summary.scenarios:
            if r.status != "ok":
                notes.append(f"- **{r.name}**: {r.status} — {r.error or 'no reason given'}")
            elif r.warnings:
                notes.append(f"- **{r.name}**: unstable — {'; '.join(r.warnings)}")
            if r.status == "ok" and r.compile_s is not None and r.compile_s > 0.05:
                notes.append(
                    f"- {r.name}: JIT compile / first call {fmt_seconds(r.compile_s)}"
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
