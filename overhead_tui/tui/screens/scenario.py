"""The drill-in screen: one scenario's description, layers, status and tabs."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static, TabbedContent, TabPane

from overhead_tui.present.live import LadderRow, LiveLadder
from overhead_tui.summary.layers import layer_label
from overhead_tui.tui.screens.base import DrillScreen
from overhead_tui.tui.widgets.tabs import scenario_tabs


class About(VerticalScroll, can_focus=False):
    """The scenario's description and layers; scrolls with the mouse, keys go to the tabs."""


class ScenarioScreen(DrillScreen):
    """Shows ``row``, and its newer states from the app's reactive ``ladder`` (watched)."""

    CSS_PATH = "scenario.tcss"

    def __init__(self, row: LadderRow) -> None:
        super().__init__()
        self.row = row
        self._composed_from = row.result
        """The result the tabs show: the ladder mutates ``row`` in place, so whether results
        landed is told by the result object, not by the row's earlier state."""
        self._status_shown = ""
        """The status line as drawn (redrawn only when the row's state says otherwise)."""

    def on_mount(self) -> None:
        # init: what the ladder applied between compose and now is caught up at once
        self.watch(self.app, "ladder", self._ladder_changed)

    def _ladder_changed(self, ladder: LiveLadder) -> None:
        """Follow this scenario's row on any change of the ladder, by comparing the row with
        what the screen shows (:meth:`update_row`), not by which scenario the last event named:
        a change this screen was not told of (before it watched) is caught up on the next;
        not while samples are timed (it catches up on the first change after)."""
        row = ladder.rows.get(self.scenario_name)
        if row is not None and not ladder.quiet:
            self.update_row(row)

    @property
    def scenario_name(self) -> str:
        """Name of the scenario shown."""
        return self.row.result.name

    def compose_body(self) -> ComposeResult:
        r = self._composed_from = self.row.result
        with About(id="about"):
            yield Static(
                Text.assemble(
                    (f"{r.rung}. {r.title}", "bold"), f"  ({r.name}, n={r.n}, {r.dtype})"
                ),
                id="title",
            )
            yield Static(Text(r.description or "(no description)"), id="description")
            yield Static(
                Text("carries: " + (", ".join(layer_label(x) for x in r.layers) or "—")),
                id="layers",
            )
            yield Static(
                Text(
                    "removes vs. the rung before: "
                    + (", ".join(layer_label(x) for x in r.removes) or "—")
                ),
                id="removes",
            )
            self._status_shown = self._status_text()
            yield Static(Text(self._status_shown), id="status")
        tabs = [cls for cls in scenario_tabs() if cls.has_data(r)]
        with TabbedContent(id="tabs"):
            for cls in tabs:
                with TabPane(cls.tab_title, id=f"tab-{cls.__name__.lower()}"):
                    yield cls(r)

    def _status_text(self) -> str:
        row = self.row
        r = row.result
        if row.active:
            return f"status: {row.state} (results appear when it finishes)"
        if row.state == "queued":
            return "status: queued"
        text = f"status: {r.status}"
        if r.error:
            text += f" — {r.error}"
        return text

    def _focus_tabs(self) -> None:
        """Arrow keys switch tabs again after a recompose (it drops the focus)."""
        tabs = self.query("Tabs")
        if tabs:
            tabs.first().focus()

    def update_row(self, row: LadderRow) -> None:
        """Show ``row``, the scenario's state now: recompose when another result landed (a
        new run's row too), redraw the status line when it reads otherwise, else nothing."""
        self.row = row
        if row.result is not self._composed_from:
            self._composed_from = row.result  # compose reads it again (or a newer one)
            self.refresh(recompose=True)
            self.call_after_refresh(self._focus_tabs)
            return
        status = self._status_text()
        if status != self._status_shown:
            self._status_shown = status
            for shown in self.query("#status").results(Static):  # none while recomposing
                shown.update(Text(status))
