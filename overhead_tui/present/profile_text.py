"""A profile as the text ``overhead-tui profile`` prints: each backend's status, its notes, and
its figures (callgrind's instructions, py-spy's frames, Scalene's lines, perf's layers and
symbols)."""

from __future__ import annotations

from overhead_tui.profilers.profile import (
    INTERRUPTED,
    NOT_RUN,
    baseline_source_text,
    slowdown_text,
)
from overhead_tui.summary.layers import layer_label
from overhead_tui.summary.profile import (
    BackendResult,
    CallgrindResult,
    ProfileRecord,
    PyspyResult,
    ScaleneResult,
)
from overhead_tui.summary.units import fmt_number, fmt_percent


def render(result: ProfileRecord) -> str:
    """A readable text report of a profile."""
    baseline = (  # never a number that was not measured (a rung that could not run)
        f"unprofiled {fmt_number(result.baseline_per_call_s * 1e3)} ms per call"
        if result.baseline_per_call_s
        else "no unprofiled time (the scenario did not run)"
    )
    lines = [f"{result.scenario}  n={result.n}  {result.dtype}  {baseline}"]
    if result.baseline_per_call_s:
        lines.append(f"  baseline: {baseline_source_text(result)}")
    if result.error:
        lines.append(f"  error: {result.error}")
    for name, part in result.backends.items():
        head = f"\n{name}: {part.status}"
        if part.status in (INTERRUPTED, NOT_RUN):  # one line: "callgrind: not run (why)"
            lines.append(f"{head} ({part.reason})")
            continue
        if part.version:
            head += f" (version {part.version})"
        if part.slowdown:
            head += f", {slowdown_text(part.slowdown)}"
        lines.append(head)
        lines += [f"  note: {note}" for note in part.notes]
        if not part.ok:
            lines.append(f"  {part.reason}" + (f"; fix: {part.fix}" if part.fix else ""))
            continue
        lines.extend(_details(part))
    return "\n".join(lines)


def _details(part: BackendResult) -> list[str]:
    lines = []
    if isinstance(part, CallgrindResult):
        lines.append(
            f"  {fmt_number(part.instructions_per_fma)} instructions per multiply-"
            f"add (n={part.n}), {fmt_number(part.floats_per_fma)} floats created"
        )
    if isinstance(part, PyspyResult):
        lines.append(
            f"  {part.samples} samples, {fmt_percent(part.native_fraction)} in "
            f"native frames, errors {part.errors}"
        )
        lines += [f"  {fmt_percent(r.self_share):>8}  {r.frame}" for r in part.top_frames[:8]]
    if isinstance(part, ScaleneResult):
        t = part.totals
        lines.append(
            f"  python {fmt_percent(t.python)}, native {fmt_percent(t.native)}, "
            f"system {fmt_percent(t.system)}"
        )
        lines += [
            f"  line {x.lineno:>4}: python {fmt_percent(x.python)}, native "
            f"{fmt_percent(x.native)}  {x.line.strip()[:50]}"
            for x in part.lines
        ]
    layers = getattr(part, "layers", {})
    for layer, share in sorted(layers.items(), key=lambda kv: -kv[1]):
        if share >= 0.005:
            lines.append(f"  {fmt_percent(share):>8}  {layer_label(layer)}")
    for row in getattr(part, "top_symbols", ())[:8]:
        lines.append(
            f"  {fmt_percent(row.fraction):>8}  {row.symbol[:40]:<40} "
            f"{row.library[:24]:<24} {row.layer}"
        )
    return lines


def profile_line(profile: ProfileRecord) -> str:
    """What each backend recorded, in a few words: ``perf ok (interpreter_dispatch 61 %,
    boxing 12 %), pyspy ok``; a backend that recorded nothing says why."""
    parts = []
    for name, part in profile.backends.items():
        layers = getattr(part, "layers", None) or {}
        top = sorted(layers.items(), key=lambda kv: -kv[1])[:2]
        said = f"{name} {part.status}"
        if top and part.ok:
            said += " (" + ", ".join(f"{k} {v:.0%}" for k, v in top) + ")"
        elif not part.ok and isinstance(reason := getattr(part, "reason", None), str):
            said += f" ({reason})"
        parts.append(said)
    return ", ".join(parts) or (profile.error or "nothing recorded")
