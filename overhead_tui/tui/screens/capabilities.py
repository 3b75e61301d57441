"""The Capabilities screen: which profiler backends work here, and how to fix the others."""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.profilers.capabilities import Capability
from overhead_tui.tui.screens.base import DrillScreen


class CapabilitiesScreen(DrillScreen):
    """One row per backend: available or not, version, reason and fix.

    Given ``detector`` instead of the capabilities, the screen opens at once and fills its
    table in from a thread (each check starts the backend's tool: about a second in all)."""

    CSS_PATH = "capabilities.tcss"

    def __init__(
        self,
        capabilities: dict[str, Capability] | None = None,
        detector: Callable[[], dict[str, Capability]] | None = None,
    ) -> None:
        super().__init__()
        self.capabilities = capabilities
        self.detector = detector

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            if self.capabilities is None:
                yield Static("checking the profiler backends (perf, py-spy, valgrind, Scalene)…",
                             id="backends")  # fmt: skip
            else:
                yield Static(self._table(), id="backends")
            yield Static(
                "\nPress p on a scenario to profile it with the available backends. "
                "A missing backend never stops anything else."
            )

    def on_mount(self) -> None:
        if self.capabilities is None and self.detector is not None:
            self._detect()

    @work(thread=True, exclusive=True, group="capabilities")
    def _detect(self) -> None:
        assert self.detector is not None
        found = self.detector()
        self.app.call_from_thread(self._show_found, found)

    def _show_found(self, found: dict[str, Capability]) -> None:
        self.capabilities = found
        self.query_one("#backends", Static).update(self._table())

    def _table(self) -> Table:
        table = Table(title="Profiler backends", title_justify="left", header_style="bold")
        for header in ("backend", "status", "version", "reason / fix"):
            table.add_column(header)
        for cap in (self.capabilities or {}).values():
            status = Text("ok", style="green") if cap.ok else Text("unavailable", style="bold red")
            detail = cap.path or "" if cap.ok else f"{cap.reason}\nfix: {cap.fix}"
            table.add_row(cap.name, status, cap.version or "—", detail)
        return table
