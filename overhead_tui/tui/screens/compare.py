"""The Compare screen: run B against run A rung by rung (``overhead-tui compare A B --app``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from overhead_tui.analysis.compare import Comparison, RungComparison
from overhead_tui.present.compare_text import (
    COMPARE_HEADERS,
    comparison_cells,
    detail_text,
    facts_lines,
    run_notes,
)
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.tui.screens.base import DrillScreen

if TYPE_CHECKING:
    from overhead_tui.tui.app import OverheadApp

COLUMN_KEYS: tuple[str, ...] = ("scenario", "median_a", "median_b", "ratio", "p", "verdict", "note")
"""DataTable column keys, in the order of :data:`COMPARE_HEADERS` plus the note."""
VERDICT_STYLES: dict[str, str] = {"slower": "bold red", "faster": "bold green", "same": "bold"}
"""Colour only repeats the verdict word (readable without colour)."""
RIGHT_ALIGNED = {"median_a", "median_b", "ratio", "p"}


class CompareScreen(DrillScreen):
    """The comparison table, the highlighted row in one line, and what differs between runs."""

    CSS_PATH = "compare.tcss"

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison

    def compose_body(self) -> ComposeResult:
        yield Static(self._legend(), id="legend")
        yield DataTable(id="rows", cursor_type="row", zebra_stripes=True)
        yield Static("", id="detail")
        with VerticalScroll(id="facts"):
            yield Static(self._facts())

    def on_mount(self) -> None:
        self.sub_title = "compare: run B against run A"
        table = self.query_one("#rows", DataTable)
        for key, header in zip(COLUMN_KEYS, (*COMPARE_HEADERS, "note"), strict=True):
            label = Text(header, justify="right" if key in RIGHT_ALIGNED else "left")
            table.add_column(label, key=key)
        for row in self.comparison.rows:
            table.add_row(*self._cells(row), key=row.name)
        self._show_detail(0)

    def _cells(self, row: RungComparison) -> list[Text]:
        cells = []
        for key, text in zip(COLUMN_KEYS, comparison_cells(row), strict=True):
            style = VERDICT_STYLES.get(text, "") if key == "verdict" else ""
            cells.append(
                Text(text, style=style, justify="right" if key in RIGHT_ALIGNED else "left")
            )
        return cells

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    def _show_detail(self, index: int) -> None:
        rows = self.comparison.rows
        text = detail_text(rows[index]) if 0 <= index < len(rows) else "no rung in both runs"
        self.query_one("#detail", Static).update(Text(text))

    def _legend(self) -> Text:
        c = self.comparison
        lines = [
            f"A: {c.label_a}",
            f"B: {c.label_b}",
            *run_notes(c),
            "B/A above 1: B is slower (per flop when n differs)",
            f"significant: p < {c.alpha:g}, two-sided Mann-Whitney U rank test on the samples",
        ]
        return Text("\n".join(lines))

    def _facts(self) -> Text:
        return Text("\n".join(facts_lines(self.comparison)))


def compare_app(
    comparison: Comparison,
    summary: RunSummary,
    settings_problem: Callable[[Settings], str | None] | None = None,
) -> OverheadApp:
    """The app on run ``summary`` (not running it) with a :class:`CompareScreen` on top.

    ``escape`` on the Compare screen goes back to run A's ladder.
    """
    from overhead_tui.tui.app import OverheadApp  # here: app.py may one day import this module

    class CompareApp(OverheadApp):
        CSS_PATH = str(Path(inspect.getfile(OverheadApp)).parent / str(OverheadApp.CSS_PATH))

        def on_ready(self) -> None:
            self.push_screen(CompareScreen(comparison))

    return CompareApp(summary=summary, autorun=False, settings_problem=settings_problem)
