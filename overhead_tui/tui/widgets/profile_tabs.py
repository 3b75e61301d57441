"""Drill-in tabs of profiler results: Native (perf, callgrind), Stacks (py-spy), Lines (Scalene)."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from overhead_tui.present.format import fmt_share
from overhead_tui.profilers.profile import baseline_text, slowdown_text
from overhead_tui.summary.layers import LAYERS, layer_label
from overhead_tui.summary.profile import (
    BackendResult,
    CallgrindResult,
    PerfResult,
    PyspyResult,
    ScaleneResult,
    SymbolRow,
)
from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import fmt_number, fmt_percent
from overhead_tui.tui.widgets.column_table import column_table
from overhead_tui.tui.widgets.layer_bar import LAYER_GLYPHS, stacked_bar
from overhead_tui.tui.widgets.scenario_tab import ScenarioTab

BAR = 50
"""Cells of the measured and modelled layer bars."""


def _backend(result: ScenarioResult, name: str) -> BackendResult | None:
    return result.profile.backends.get(name) if result.profile else None


def _status(part: BackendResult, name: str) -> str:
    if part.ok:
        extra = f", {slowdown_text(part.slowdown)}" if part.slowdown else ""
        return f"{name} {part.version or ''}: ok{extra}"
    fix = f" (fix: {part.fix})" if part.fix else ""
    return f"{name}: {part.status} — {part.reason}{fix}"


def _head(result: ScenarioResult, part: BackendResult | None, name: str) -> ComposeResult:
    """The backend's status, where its slowdown's baseline came from, and its notes."""
    yield Static(_status(part, name) if part else f"{name}: not run", markup=False)
    if part is None:
        return
    if part.slowdown:
        yield Static(f"  {baseline_text(result.profile)}", markup=False)
    for note in part.notes:
        yield Static(f"  note: {note}", markup=False)


class BackendTab(ScenarioTab):
    """A tab of profiler results: for each of its ``backends`` (the key in
    ``result.profile.backends``, the name its status line gives, the record an ok run of it
    is), that status, then what :meth:`results` shows of an ok run."""

    backends: ClassVar[tuple[tuple[str, str, type[BackendResult]], ...]] = ()

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return any(_backend(result, key) for key, _, _ in cls.backends)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            note = self.result.profile.lines_note if self.result.profile else None
            if note and any(key in ("pyspy", "scalene") for key, _, _ in self.backends):
                yield Static(f"! {note}", classes="warning", markup=False)
            for key, name, record in self.backends:
                part = _backend(self.result, key)
                yield from _head(self.result, part, name)
                if part is not None and part.ok and isinstance(part, record):
                    yield from self.results(part)

    def results(self, part: BackendResult) -> ComposeResult:
        """The widgets showing an ok result ``part`` of one of the tab's backends."""
        raise NotImplementedError


class NativeTab(BackendTab):
    """perf's self time per native symbol, the measured layer bar beside the model's."""

    tab_title = "Native"
    backends = (
        ("perf", "perf (cpu-clock)", PerfResult),
        ("callgrind", "callgrind", CallgrindResult),
    )

    def results(self, part: BackendResult) -> ComposeResult:
        if isinstance(part, PerfResult):
            yield Static(self._compare(part.layers))
            yield Static(_symbols(part.top_symbols))
        elif isinstance(part, CallgrindResult):
            yield Label(
                f"{fmt_number(part.instructions_per_fma)} instructions per "
                f"multiply-add at n = {part.n}; "
                f"{fmt_number(part.floats_per_fma)} floats created per FMA "
                "(exact PyFloat_FromDouble calls)"
            )
            yield Static(_symbols(part.top_symbols, "instructions"))

    def _compare(self, measured: dict[str, float]) -> Table:
        b = self.result.breakdown
        model = b.layers if b else {}
        table = Table(box=None, padding=(0, 1), show_header=True, header_style="bold")
        table.add_column("")
        table.add_column("by layer", no_wrap=True)
        table.add_row("measured (perf)", stacked_bar(measured, BAR))
        if model:
            table.add_row("model", stacked_bar(model, BAR))
        diff = column_table(
            ("layer", "measured", "model", "difference", "verdict"),
            left={"layer", "verdict"},
            padding=(0, 2),
            header_style="bold",
        )
        agreement = b.agreement.layers if b and b.agreement else {}
        for layer in LAYERS:
            m, p = measured.get(layer), model.get(layer)
            if (m or 0) < 0.005 and abs(p or 0) < 0.005:
                continue
            letter = LAYER_GLYPHS[layer][0]
            delta = fmt_percent((m or 0) - (p or 0)) if model else "—"
            verdict = agreement.get(layer)
            diff.add_row(
                f"{letter} {layer_label(layer)}",
                fmt_share(m, verdict.perf_interval if verdict else None),
                fmt_share(p, verdict.model_interval if verdict else None) if model else "—",
                delta,
                verdict.verdict if verdict else "",
            )
        for name, e in agreement.items():
            if "+" in name:  # a merged pair perf cannot split
                diff.add_row(
                    name.replace("+", " + "),
                    fmt_share(e.perf, e.perf_interval),
                    fmt_share(e.model, e.model_interval),
                    fmt_percent((e.perf or 0) - (e.model or 0)),
                    e.verdict,
                )
        outer = Table.grid()
        outer.add_row(table)
        outer.add_row(diff)
        return outer


def _symbols(rows: tuple[SymbolRow, ...], unit: str = "self time") -> Table:
    table = column_table(
        ("share", "symbol", "library", "layer"),
        left={"symbol", "library", "layer"},
        padding=(0, 2),
        header_style="bold",
        title=f"top symbols ({unit})",
        title_justify="left",
    )
    for row in rows[:20]:
        table.add_row(
            fmt_percent(row.fraction),
            Text(str(row.symbol)[:48]),
            str(row.library)[:28],
            str(row.layer),
        )
    return table


class StacksTab(BackendTab):
    """py-spy's sampled stacks: samples, errors, native share and a top-N self-time table."""

    tab_title = "Stacks"
    backends = (("pyspy", "py-spy --native", PyspyResult),)

    def results(self, part: PyspyResult) -> ComposeResult:  # type: ignore[override]
        yield Label(
            f"{part.samples} samples of the kernel, errors "
            f"{part.errors}, {fmt_percent(part.native_fraction)} "
            "ending in native frames (C, BLAS, JIT)"
        )
        table = column_table(
            ("self", "total", "frame"), left={"frame"}, padding=(0, 2), header_style="bold"
        )
        for row in part.top_frames:
            table.add_row(fmt_percent(row.self_share), fmt_percent(row.total), Text(row.frame))
        yield Static(table)


class LinesTab(BackendTab):
    """Scalene's per-line Python / native / system time over the kernel's source lines."""

    tab_title = "Lines"
    backends = (("scalene", "Scalene --cpu-only", ScaleneResult),)

    def results(self, part: ScaleneResult) -> ComposeResult:  # type: ignore[override]
        table = column_table(
            ("line", "python", "native", "system", "", "source"),
            left={"", "source"},
            padding=(0, 1),
            header_style="bold",
        )
        for line in part.lines:
            bar = Text()
            bar.append("P" * round(line.python * 30), style="black on #5fafff")
            bar.append("N" * round(line.native * 30), style="black on #ffd75f")
            bar.append("S" * round(line.system * 30), style="black on #8a8a8a")
            table.add_row(
                str(line.lineno),
                fmt_percent(line.python),
                fmt_percent(line.native),
                fmt_percent(line.system),
                bar,
                Text(line.line.rstrip()[:60]),
            )
        yield Static(table)
        yield Label("bars: P python, N native, S system (30 cells = 100 %)")
