"""The drill-in tabs.  A tab is one widget class listed in ``SCENARIO_TABS``.

Each tab class has ``tab_title`` and ``has_data(result)``; the scenario screen shows only the
tabs with data, so later tabs (breakdown, stacks) are added by writing one class and listing it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.syntax import Syntax
from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Label, Sparkline, Static

from overhead_tui.format import fmt_gflops, fmt_percent, fmt_ratio, fmt_seconds
from overhead_tui.model import ScenarioResult


class ScenarioTab(Widget):
    """Base of the drill-in tabs."""

    tab_title: ClassVar[str] = ""

    def __init__(self, result: ScenarioResult) -> None:
        super().__init__()
        self.result = result

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        """Whether the tab has anything to show for ``result``."""
        raise NotImplementedError


class TimingsTab(ScenarioTab):
    """Samples as a sparkline, the statistics and the derived throughput figures."""

    tab_title = "Timings"
    DEFAULT_CSS = """
    TimingsTab { height: auto; }
    TimingsTab Sparkline { height: 3; margin: 0 1; }
    TimingsTab .caption { color: $text-muted; padding: 0 1; }
    TimingsTab #stats { padding: 0 1; height: auto; }
    """

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return result.has_speed and bool(result.samples_s)

    def compose(self) -> ComposeResult:
        r = self.result
        yield Label(
            f"{len(r.samples_s)} samples × {r.loops or 1} call(s) each, seconds per call "
            f"(min {fmt_seconds(r.min_s)}, max {fmt_seconds(max(r.samples_s))})",
            classes="caption",
        )
        yield Sparkline(r.samples_s, summary_function=max)
        yield Static(self._stats_table(), id="stats")

    def _stats_table(self) -> Table:
        r = self.result
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column(justify="right")
        table.add_column(style="bold")
        table.add_column(justify="right")
        rows = [
            ("median", fmt_seconds(r.median_s), "GFLOP/s", fmt_gflops(r.gflops)),
            (
                "min",
                fmt_seconds(r.min_s),
                "ns per multiply-add",
                f"{r.ns_per_fma:.3g}" if r.ns_per_fma is not None else "—",
            ),
            ("IQR", fmt_seconds(r.iqr_s), "× dense kernel", fmt_ratio(r.vs_dense)),
            ("CV", fmt_percent(r.cv), "compile / first call", fmt_seconds(r.compile_s)),
            ("std dev", fmt_seconds(r.stdev_s), "CPU steal", fmt_percent(r.steal_fraction)),
            (
                "max |error|",
                f"{r.max_abs_error:.2g}" if r.max_abs_error is not None else "—",
                "threads (BLAS / numba)",
                f"{_int(r.blas_threads)} / {_int(r.numba_threads)}",
            ),
        ]
        for row in rows:
            table.add_row(*row)
        for warning in r.warnings:
            table.add_row("!", warning, "", "")
        return table


class SourceTab(ScenarioTab):
    """The kernel's own source, syntax highlighted."""

    tab_title = "Source"

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        return bool(result.kernel_source.strip())

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(
                Syntax(
                    self.result.kernel_source,
                    "python",
                    line_numbers=True,
                    theme="ansi_dark",
                    word_wrap=False,
                )
            )


def _int(value: int | None) -> str:
    return "—" if value is None else str(value)


SCENARIO_TABS: list[type[ScenarioTab]] = [TimingsTab, SourceTab]
"""Tabs of the scenario screen, in order."""
