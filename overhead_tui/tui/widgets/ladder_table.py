"""The ladder table: one keyed row per scenario, updated in place as events arrive."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from overhead_tui.analysis.span import Step, span
from overhead_tui.present.ladder_rows import dense_cell, vs_python
from overhead_tui.present.live import LadderRow, LiveLadder
from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import fmt_gflops, fmt_ratio, fmt_seconds
from overhead_tui.summary.vocabulary import FAILED, rate_unit
from overhead_tui.tui.widgets.layer_bar import stacked_bar
from overhead_tui.tui.widgets.log_bar import log_bar

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
"""Frames of the running-state spinner."""


COLUMNS: tuple[tuple[str, str, int, frozenset[str]], ...] = (
    # (key, label, width, layouts that show it); the bar takes the remaining width
    ("rung", "#", 2, frozenset({"narrow", "normal", "wide"})),
    ("name", "scenario", 22, frozenset({"narrow", "normal", "wide"})),
    ("title", "title", 40, frozenset({"wide"})),
    ("n", "n", 5, frozenset({"normal", "wide"})),
    ("dtype", "dtype", 8, frozenset({"normal", "wide"})),  # "bfloat16" whole
    ("state", "state", 9, frozenset({"narrow", "normal", "wide"})),
    ("median", "median", 7, frozenset({"narrow", "normal", "wide"})),
    ("gflops", "GFLOP/s", 7, frozenset({"narrow", "normal", "wide"})),
    ("vs_dense", "× dense", 8, frozenset({"narrow", "normal", "wide"})),  # or a dtype
    ("vs_python", "× Python", 8, frozenset({"wide"})),
)
"""The ladder's columns and the layouts ("narrow" < 100, "normal", "wide" ≥ 150 columns)."""

BAR_TITLES = ("× dense (log), by layer", "× dense, by layer", "by layer")
"""The bar column's header, longest first: the longest that fits the bar's width."""
MAX_BAR = 120
"""The widest the layer bar grows (columns): wide terminals give it the room left."""

SHORT_STATES = {"starting": "start", "compiling": "warm-up", "validating": "check"}
"""Labels of the active states that fit the state column ("warm-up": the first call, which
includes JIT compilation for numba rungs and is timed apart)."""


def layout_for(width: int) -> str:
    """The column layout for a terminal ``width`` columns wide."""
    return "wide" if width >= 150 else "normal" if width >= 100 else "narrow"


class LadderTable(DataTable[Text]):
    """Rows keyed by scenario name, cells updated in place; columns depend on the width."""

    COMPONENT_CLASSES = {
        "laddertable--ok",
        "laddertable--failed",
        "laddertable--active",
        "laddertable--muted",
        "laddertable--bar",
    }
    DEFAULT_CSS = """
    LadderTable > .laddertable--ok { color: $success; }
    LadderTable > .laddertable--failed { color: $error; text-style: bold; }
    LadderTable > .laddertable--active { color: $warning; }
    LadderTable > .laddertable--muted { color: $text-muted; }
    LadderTable > .laddertable--bar { color: $accent; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.layout_name = ""
        self.bar_width = 12
        self.frame = 0

    def set_width(self, width: int) -> bool:
        """Pick the layout for a screen ``width`` wide; True when columns must be rebuilt."""
        layout = layout_for(width)
        shown = [c for c in COLUMNS if layout in c[3]]
        # cell padding, the bar's own padding, the vertical scrollbar (2) and a spare cell
        used = sum(w + 2 for _, _, w, _ in shown) + 2 + 3
        bar_width = max(4, min(MAX_BAR, width - used))
        changed = layout != self.layout_name or bar_width != self.bar_width or not self.columns
        self.layout_name, self.bar_width = layout, bar_width
        return changed

    def rebuild(self, ladder: LiveLadder) -> None:
        """Recreate columns and rows, keeping the cursor on the same scenario."""
        selected = self.selected_name
        self.clear(columns=True)
        unit = rate_unit(ladder.summary.settings.dtype)  # GOP/s for an int8 run
        for key, label, width, layouts in COLUMNS:
            if self.layout_name in layouts:
                self.add_column(unit if key == "gflops" else label, key=key, width=width)
        title = next((t for t in BAR_TITLES if len(t) <= self.bar_width), "")
        self.add_column(title, key="bar", width=self.bar_width)
        max_ratio = _max_ratio(ladder)
        python = span(ladder.summary).python
        for row in ladder.ordered():
            cells = self._cells(row, max_ratio, python, ladder.summary.settings.dtype)
            self.add_row(*cells.values(), key=row.result.name)
        if selected is not None and selected in ladder.rows:
            self.move_cursor(row=self.get_row_index(selected))

    def refresh_rows(self, ladder: LiveLadder, names: list[str] | None = None) -> None:
        """Update cells in place (all rows when ``names`` is None: bars rescale)."""
        max_ratio = _max_ratio(ladder)
        python = span(ladder.summary).python
        for row in ladder.ordered():
            if names is not None and row.result.name not in names:
                continue
            if row.result.name not in self.rows:
                self.rebuild(ladder)
                return
            cells = self._cells(row, max_ratio, python, ladder.summary.settings.dtype)
            for key, value in cells.items():
                self.update_cell(row.result.name, key, value)

    @property
    def selected_name(self) -> str | None:
        """The scenario under the cursor."""
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except Exception:  # the cursor can point past a cleared table
            return None
        return str(key.value)

    def _cells(
        self, row: LadderRow, max_ratio: float, python: Step | None, dtype: str
    ) -> dict[str, Text]:
        r = row.result
        speed = r.has_speed
        faster = vs_python(r, python)
        values = {
            "rung": Text(str(r.rung), justify="right"),
            "name": Text(r.name, overflow="ellipsis", no_wrap=True),
            "title": Text(r.title, overflow="ellipsis", no_wrap=True),
            "n": Text(str(r.n), justify="right"),
            "dtype": Text(r.dtype),
            "state": self._state(row),
            "median": Text(fmt_seconds(r.median_s) if speed else "—", justify="right"),
            "gflops": Text(fmt_gflops(r.gflops) if speed else "—", justify="right"),
            "vs_dense": Text(dense_cell(r, dtype), justify="right"),
            "vs_python": Text(fmt_ratio(faster), justify="right"),
        }
        cells = {k: values[k] for k, _, _, layouts in COLUMNS if self.layout_name in layouts}
        cells["bar"] = self._bar(r, max_ratio)
        return cells

    def _bar(self, r: ScenarioResult, max_ratio: float) -> Text:
        """× dense on a log scale; split by layer (letters) when there is a breakdown."""
        bar = log_bar(r.vs_dense if r.has_speed else None, max_ratio, self.bar_width)
        filled = len(bar.rstrip())
        if r.has_speed and r.breakdown and filled >= 2:
            text = stacked_bar(r.breakdown.layers, filled)
            text.append(" " * (self.bar_width - filled))
            return text
        return Text(bar, style=self.get_component_rich_style("laddertable--bar"))

    def _state(self, row: LadderRow) -> Text:
        state = row.state
        if row.active:
            spin = SPINNER[self.frame % len(SPINNER)]
            if state == "running" and row.samples_total:
                label = f"{spin} {row.samples_done}/{row.samples_total}"
            else:
                label = f"{spin} {SHORT_STATES.get(state, state)}"
            return Text(label, style=self.get_component_rich_style("laddertable--active"))
        if state in FAILED:
            return Text(state, style=self.get_component_rich_style("laddertable--failed"))
        if state == "ok":
            label = "ok !" if row.result.warnings else "ok"
            return Text(label, style=self.get_component_rich_style("laddertable--ok"))
        return Text(state, style=self.get_component_rich_style("laddertable--muted"))


def _max_ratio(ladder: LiveLadder) -> float:
    ratios = [
        r.result.vs_dense
        for r in ladder.rows.values()
        if r.result.has_speed and r.result.vs_dense is not None
    ]
    return max(ratios, default=1.0)
