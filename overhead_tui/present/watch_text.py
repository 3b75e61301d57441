"""What a watched save changed, as lines of text: the command prints them, the app's Watch
screen shows them.  One save measured gives its median with the middle half of its samples,
faster or slower than the last by the rank test, its place on the saved ladder, each layer's
change and a sparkline of the versions; a save not measured gives one line."""

from __future__ import annotations

from overhead_tui.analysis.watch import (
    Version,
    change,
    ladder_place,
    layer_changes,
    sparkline,
)
from overhead_tui.engine.watch import SaveMeasured
from overhead_tui.present.error_text import headline
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops, fmt_seconds


def save_lines(
    saved: SaveMeasured, file_name: str, history: list[Version], ladder: RunSummary | None
) -> list[str]:
    """The lines that say what ``saved`` changed; ``history`` is every version so far (the
    saved one last), ``ladder`` the run it is placed on (None: no place said)."""
    version, last = saved.version, saved.last_good
    if not version.ok:
        kept = f"; the last good result stays: {fmt_seconds(last.median_s)}" if last else ""
        return [f"[{version.when}] {file_name}: {version.status}: {reason(version)}{kept}"]
    samples = sorted(version.samples_s)
    low, high = samples[len(samples) // 4], samples[(3 * len(samples)) // 4]
    at = f" (n={version.n})" if version.n else ""
    line = (
        f"[{version.when}] {saved.name}{at}: {fmt_seconds(version.median_s)} "
        f"[{fmt_seconds(low)}–{fmt_seconds(high)}]  {fmt_gflops(version.gflops)} GFLOP/s"
    )
    if last is not None and (changed := change(last, version)):
        line += f"  {changed}"
    lines = [line]
    if version.gflops and (place := ladder_place(version.gflops, ladder, saved.name)):
        lines.append(f"    ladder (its rungs each at their own n): {place}")
    if last is not None and (layers := layer_changes(last, version)):
        lines.append(f"    why: {', '.join(layers)}")
    times = [v.median_s for v in history if v.ok and v.median_s]
    if len(times) > 1:
        lines.append(f"    last {len(times)}: {sparkline(times)} (time per call)")
    return lines


def reason(version: Version) -> str:
    """Why a save was not measured, in one line (:func:`~overhead_tui.present.error_text.headline`
    of its error, else its status)."""
    return headline(version.error or "") or version.status


def history_markdown(history: list[Version]) -> str:
    """The versions as a Markdown table: time, status, median, GFLOP/s."""
    lines = ["| time | status | median | GFLOP/s | why not measured |", "|---|---|---:|---:|---|"]
    for v in history:
        median = fmt_seconds(v.median_s) if v.ok else "—"
        why = "" if v.ok else reason(v).replace("|", "\\|")
        lines.append(f"| {v.when} | {v.status} | {median} | {fmt_gflops(v.gflops)} | {why} |")
    return "\n".join(lines) + "\n"
