"""The Capabilities screen: which profiler backends work here, and how to fix the others."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from overhead_tui.profilers.capabilities import Capability
from overhead_tui.tui.screens.base import DrillScreen


class CapabilitiesScreen(DrillScreen):
    """One row per backend: available or not, version, reason and fix."""

    CSS_PATH = "capabilities.tcss"

    def __init__(self, capabilities: dict[str, Capability]) -> None:
        super().__init__()
        self.capabilities = capabilities

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            yield Static(self._table())
            yield Static(
                "\nPress p on a scenario to profile it with the available backends. "
                "A missing backend never stops anything else."
            )

    def _table(self) -> Table:
        table = Table(title="Profiler backends", title_justify="left", header_style="bold")
        for header in ("backend", "status", "version", "reason / fix"):
            table.add_column(header)
        for cap in self.capabilities.values():
            status = Text("ok", style="green") if cap.ok else Text("unavailable", style="bold red")
            detail = cap.path or "" if cap.ok else f"{cap.reason}\nfix: {cap.fix}"
            table.add_row(cap.name, status, cap.version or "—", detail)
        return table
