"""The Interpreters screen: the same ladder on several Pythons (``overhead-tui interpreters
--app``, or ``overhead-tui open COMBINED.json``).

On top the grid, rung × interpreter (GFLOP/s, bytecodes per multiply-add, the layer whose
modelled cost changed most against the baseline); under it, for the rung under the cursor, the
breakdowns of two interpreters A and B side by side with the per-row difference and what it
comes from (fewer events per multiply-add, or each one cheaper).  ``[`` and ``]`` choose A and
B.  Every figure comes from ``analysis.interpreters`` (``grid``, ``breakdown_pair``), formatted
by ``present.interpreters_text`` like the Markdown table; the screen only lays them out.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from overhead_tui.analysis.interpreters import breakdown_pair, grid
from overhead_tui.present.interpreters_text import (
    CELL_LEGEND,
    PAIR_HEADER,
    cell_parts,
    column_titles,
    pair_rows,
    pair_summary,
)
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.tui.screens.base import BaseScreen

WIDE = 110
"""Below this many columns the breakdown table leaves out the ns per event columns (ns per
multiply-add over events per multiply-add)."""
UNIT_COST = (4, 5)
"""Indices of the ns per event columns in ``PAIR_HEADER``."""


class InterpretersScreen(BaseScreen):
    """The rung × interpreter grid and two interpreters' breakdowns of the selected rung."""

    CSS_PATH = "interpreters.tcss"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("left_square_bracket", "cycle_a", "Choose A", key_display="["),
        Binding("right_square_bracket", "cycle_b", "Choose B", key_display="]"),
    ]

    def __init__(self, combined: InterpretersSummary) -> None:
        super().__init__()
        self.combined = combined
        self.cells = grid(combined)
        self.a = 0
        """Index of interpreter A (default: the baseline)."""
        self.b = len(combined.interpreters) - 1
        """Index of interpreter B (default: the last, usually the newest)."""

    def compose_body(self) -> ComposeResult:
        if not self.cells:
            yield Static(
                "No rungs in this summary. Run some with `overhead-tui interpreters --python "
                "3.12 --python 3.13 --json FILE` (see `overhead-tui interpreters --help`).",
                id="empty",
            )
        else:
            yield DataTable(id="grid", cursor_type="row", zebra_stripes=True)
            yield Static(CELL_LEGEND, id="legend")
            yield Static("", id="choice")
            with VerticalScroll(id="pair"):
                yield Static("", id="breakdowns")
                yield Static("", id="changes")

    def on_mount(self) -> None:
        if not self.cells:
            return
        table = self.query_one("#grid", DataTable)
        table.add_column("rung", key="rung")
        for i, title in enumerate(column_titles(self.combined)):
            table.add_column(title, key=f"i{i}")
        for name, cells in self.cells:
            table.add_row(
                name, *(Text("\n".join(cell_parts(c))) for c in cells), height=None, key=name
            )
        self.show_pair()

    @property
    def selected(self) -> str:
        """The scenario name under the grid's cursor."""
        table = self.query_one("#grid", DataTable)
        return self.cells[min(table.cursor_row, len(self.cells) - 1)][0]

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_pair()

    def on_resize(self) -> None:
        self.show_pair()

    def _next(self, index: int, other: int) -> int:
        count = len(self.combined.interpreters)
        nxt = (index + 1) % count
        if nxt == other and count > 2:
            nxt = (nxt + 1) % count
        return nxt

    def action_cycle_a(self) -> None:
        """Make the next interpreter A (skipping B while there are others)."""
        self.a = self._next(self.a, self.b)
        self.show_pair()

    def action_cycle_b(self) -> None:
        """Make the next interpreter B (skipping A while there are others)."""
        self.b = self._next(self.b, self.a)
        self.show_pair()

    def show_pair(self) -> None:
        """Draw the selected rung's breakdowns on A and B."""
        if not self.cells:
            return
        name = self.selected
        runs = self.combined.interpreters
        label_a, label_b = runs[self.a].label, runs[self.b].label
        self.query_one("#choice", Static).update(
            Text.assemble(
                (name, "bold"),
                ": A = ",
                (label_a, "bold"),
                ", B = ",
                (label_b, "bold"),
                "  ([ and ] choose A and B)",
            )
        )
        pair = breakdown_pair(self.combined, name, self.a, self.b)
        breakdowns = self.query_one("#breakdowns", Static)
        changes = self.query_one("#changes", Static)
        if not pair.rows:
            breakdowns.update(
                f"No breakdown of {name} on {'either' if self.a != self.b else 'this'} "
                "interpreter: breakdowns need the probes (run without --no-probes) and a "
                "Python-level rung."
            )
            changes.update("")
            return
        table = Table(
            header_style="bold", box=None, padding=(0, 1), collapse_padding=True, pad_edge=False
        )
        keep = [i for i in range(len(PAIR_HEADER)) if self.size.width >= WIDE or i not in UNIT_COST]
        for i in keep:
            table.add_column(PAIR_HEADER[i], justify="left" if i < 2 else "right", no_wrap=True)
        for row in pair_rows(pair):
            table.add_row(*(row[i] for i in keep), style="bold" if row[0] == "measured" else "")
        breakdowns.update(table)
        lines = pair_summary(pair)
        if not pair.has_breakdowns:
            lines.insert(0, "Only one of the two has a breakdown of this rung.")
        changes.update(
            Text("B against A, the rows that changed most:\n" + "\n".join(f"• {x}" for x in lines))
            if lines
            else Text("Nothing in the breakdown changed between A and B.")
        )
