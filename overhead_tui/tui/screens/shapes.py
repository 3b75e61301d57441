"""The Shapes screen: GFLOP/s against the batch m of (m×k)·(k×n), log-log, B fixed.

Each scenario's measured curve, with the roofs it is judged against: the bandwidth slope
(bandwidth × intensity, a line rising with m) and the compute roof (the measured peak, flat);
the measured crossing is marked on its curve, the table of points and crossings is under the
plot.  The numbers come from the summary's ``shapes`` (``overhead-tui shapes``); the screen
only draws them.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from overhead_tui.analysis.shapes import intensity
from overhead_tui.present.shapes_text import CROSSING_HEADER, HEADER, crossing_rows, point_rows
from overhead_tui.summary.records import RunSummary
from overhead_tui.tui.screens.loglog_screen import Legend, LogLogScreen, legend_of
from overhead_tui.tui.screens.sweep import size_ticks
from overhead_tui.tui.widgets.loglog_plot import LogLogFigure, PointLabel, Series

SLOPE_MARKER = "."
"""Line character of a bandwidth slope."""
ROOF_MARKER = "-"
"""Line character of a compute roof."""


class ShapesScreen(LogLogScreen):
    """A batch sweep: the plot on top, the points and crossings under it."""

    CSS_PATH = "shapes.tcss"
    empty_text = (
        "No batch sweep in this run. Measure one with `overhead-tui shapes` "
        "(see `overhead-tui shapes --help`)."
    )

    def __init__(self, summary: RunSummary) -> None:
        super().__init__(summary)
        self.record = summary.shapes

    def has_sweep(self) -> bool:
        return self.record is not None

    def tables(self) -> Iterable[tuple[RenderableType, str]]:
        return ((self._table(), "table"), (self._crossings(), "crossings"))

    def legend(self) -> Legend:
        """Line character and colour of each scenario with an ok point."""
        assert self.record is not None
        return legend_of(name for name in self.record.scenarios() if self.record.curve(name))

    def figure(self) -> LogLogFigure:
        """Measured curves, each distinct pair of roofs (slope and peak) once, and a label at
        each measured crossing."""
        record = self.record
        assert record is not None
        legend = self.legend()
        batches = sorted({m for name in legend for m, _ in record.curve(name)})
        series: list[Series] = []
        labels: list[PointLabel] = []
        seen_roofs: set[tuple[float | None, float | None]] = set()
        for name in legend:
            roofs = record.roofs.get(name)
            if roofs and roofs.bandwidth_gbs and roofs.peak_gflops and batches:
                key = (roofs.peak_gflops, roofs.bandwidth_gbs)
                if key not in seen_roofs:
                    seen_roofs.add(key)
                    slope = [
                        roofs.bandwidth_gbs * intensity(m, record.k, record.n, record.itemsize)
                        for m in batches
                    ]
                    series.append(
                        Series("", batches, slope, line=True, marker=SLOPE_MARKER, color="gray")
                    )
                    flat = [roofs.peak_gflops] * len(batches)
                    series.append(
                        Series("", batches, flat, line=True, marker=ROOF_MARKER, color="gray")
                    )
        for name, (marker, color) in legend.items():
            curve = record.curve(name)
            series.append(
                Series(
                    "",
                    [m for m, _ in curve],
                    [g for _, g in curve],
                    line=True,
                    marker=marker,
                    color=color[0],
                )
            )
            crossing = record.crossing.get(name)
            hit = next((g for m, g in curve if crossing and m == crossing.measured_m), None)
            if crossing is not None and crossing.measured_m is not None and hit is not None:
                labels.append(
                    PointLabel(
                        f"{marker} leaves slope m={crossing.measured_m}", crossing.measured_m, hit
                    )
                )
        return LogLogFigure(
            title=f"GFLOP/s against m: (m×{record.k})·({record.k}×{record.n}), "
            f"{record.dtype}, log-log; {SLOPE_MARKER} bandwidth slope, {ROOF_MARKER} peak",
            xlabel="m (batch)",
            ylabel="GFLOP/s",
            series=series,
            labels=labels,
            x_ticks=size_ticks(batches),
        )

    def _table(self) -> Table:
        """One row per point; the first column is the plot's legend."""
        assert self.record is not None
        legend = self.legend()
        table = Table(
            header_style="bold", box=None, padding=(0, 1), collapse_padding=True, pad_edge=False
        )
        for i, column in enumerate(HEADER):
            table.add_column(column, justify="left" if i in (0, 2, 7) else "right", no_wrap=True)
        for row in point_rows(self.record):
            marker, (_, color) = legend.get(row[0], (" ", ("", "default")))
            table.add_row(Text.assemble((marker, f"bold {color}"), " ", row[0]), *row[1:])
        return table

    def _crossings(self) -> Table:
        """Per scenario: its roofs, measured and predicted crossing, climb, why it stopped."""
        assert self.record is not None
        table = Table(
            title="crossing: where the curve leaves the bandwidth slope (* in the table)",
            header_style="bold",
            box=None,
            padding=(0, 1),
            collapse_padding=True,
            pad_edge=False,
        )
        for i, column in enumerate(CROSSING_HEADER):
            table.add_column(column, justify="left" if i in (0, 1, 8) else "right")
        for row in crossing_rows(self.record):
            table.add_row(*row)
        return table
