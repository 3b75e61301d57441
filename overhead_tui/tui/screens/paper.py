"""The Paper screen: the published matmul ladder (Leiserson et al. 2020) beside this run's."""

from __future__ import annotations

from rich.box import HEAVY_HEAD
from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.analysis.paper import compare, load_table
from overhead_tui.present.format import paper_row
from overhead_tui.tui.screens.base import SummaryScreen
from overhead_tui.tui.widgets.column_table import column_table

COLUMNS = (
    "#",
    "their step",
    "their speedup",
    "their GFLOP/s",
    "our rung",
    "our speedup",
    "our GFLOP/s",
)


class PaperScreen(SummaryScreen):
    """Their steps and speedups at n = 4096 beside our mapped rungs (per flop)."""

    CSS_PATH = "paper.tcss"

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            yield Static(self._table())

    def _table(self) -> Table:
        paper = load_table()
        table = column_table(
            COLUMNS,
            left={"their step", "our rung"},
            box=HEAVY_HEAD,
            title=f"{paper['source']} — n = {paper['n']}, {paper['dtype']}, {paper['machine']}",
            title_justify="left",
            header_style="bold",
            caption=f"ours ({self.summary.settings.dtype}): speedup per flop over python_naive, "
            f"each rung at its own n (scaled, not measured at {paper['n']})",
            caption_justify="left",
        )
        for r in compare(self.summary):
            table.add_row(*paper_row(r))
        return table
