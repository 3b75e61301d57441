"""The Sweep screen: GFLOP/s against the matrix order n, log-log, one line per scenario.

At small n the fixed cost of a call (the interpreter's, numpy's, BLAS's dispatch) dominates
and every compiled rung climbs; at large n caches, memory bandwidth and BLAS threading steps
shape the curves.  The numbers come from the summary's ``sweep`` (``overhead-tui sweep``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from overhead_tui.present.sweep_rows import point_cell, sweep_rows
from overhead_tui.tui.screens.loglog_screen import Legend, LogLogScreen, legend_of
from overhead_tui.tui.widgets.loglog_plot import LogLogFigure, Series

MAX_X_TICKS = 10
"""Most size ticks on the x axis (every k-th swept size beyond that)."""


class SweepScreen(LogLogScreen):
    """The size sweep of a run: the plot on top, the scenario × n table under it."""

    CSS_PATH = "sweep.tcss"
    empty_text = (
        "No size sweep in this run. Measure one with `overhead-tui sweep` "
        "(see `overhead-tui sweep --help`)."
    )

    def has_sweep(self) -> bool:
        return bool(self.summary.sweep)

    def tables(self) -> Iterable[tuple[RenderableType, str]]:
        return ((self._table(), "table"), (self._notes(), "notes"))

    def legend(self) -> Legend:
        """Line character and colour of each scenario with an ok point, in sweep order."""
        return legend_of(r.scenario for r in sweep_rows(self.summary) if r.curve()[0])

    def figure(self) -> LogLogFigure:
        """The plot: one line series per scenario with an ok point, drawn with its legend
        character and colour (see :meth:`legend`)."""
        sweep = self.summary.sweep
        dtype, budget_s = (sweep.dtype, sweep.budget_s) if sweep else ("", 0)
        legend = self.legend()
        series = []
        for row in sweep_rows(self.summary):
            if row.scenario in legend:
                x, y = row.curve()
                marker, color = legend[row.scenario]
                series.append(Series("", x, y, line=True, marker=marker, color=color[0]))
        return LogLogFigure(
            title=f"GFLOP/s against n, log-log ({dtype}, "
            f"budget {budget_s:g} s); lines: see the table",
            xlabel="n (matrix order)",
            ylabel="GFLOP/s",
            series=series,
            # ticks at the swept sizes instead of decades (n spans only two or three)
            x_ticks=size_ticks(sorted({n for r in sweep_rows(self.summary) for n in r.curve()[0]})),
        )

    def _table(self) -> Table:
        """Scenarios × sizes (GFLOP/s), narrow enough for 80 columns with eight sizes; the
        first column is the plot's legend."""
        sizes: list[int] = list(self.summary.sweep.sizes) if self.summary.sweep else []
        rows = sweep_rows(self.summary)
        legend = self.legend()
        table = Table(
            header_style="bold", box=None, padding=(0, 1), collapse_padding=True, pad_edge=False
        )
        table.add_column("scenario", no_wrap=True)
        for n in sizes:
            table.add_column(str(n), justify="right", no_wrap=True)
        for row in rows:
            marker, (_, color) = legend.get(row.scenario, (" ", ("", "default")))
            name = Text.assemble((marker, f"bold {color}"), " ", row.label)
            table.add_row(name, *(point_cell(row.points.get(n), "!") for n in sizes))
        return table

    def _notes(self) -> Text:
        """Why scenarios stopped early, and what the table's marks mean."""
        stopped = [f"{r.scenario} ({r.stopped})" for r in sweep_rows(self.summary) if r.stopped]
        notes = [
            "GFLOP/s by n",
            "stopped early: " + ", ".join(stopped) if stopped else "every scenario ran every size",
            "! unstable timing",
            "— not run",
        ]
        return Text(" · ".join(notes), style="italic")


def size_ticks(
    sizes: list[int],
) -> tuple[list[float], list[str], tuple[float, float]] | None:
    """x ticks of the plot at the swept sizes: (log10 positions, labels, x limits with a 4 %
    margin); at most ``MAX_X_TICKS`` (every k-th size); None for fewer than two sizes."""
    if len(sizes) < 2:
        return None
    shown = sizes[:: math.ceil(len(sizes) / MAX_X_TICKS)]
    low, high = math.log10(sizes[0]), math.log10(sizes[-1])
    margin = (high - low) * 0.04
    return (
        [math.log10(n) for n in shown],
        [str(n) for n in shown],
        (low - margin, high + margin),
    )
