"""The base of the drill-in tabs, shared by ``tabs`` (measurements) and ``profile_tabs``."""

from __future__ import annotations

from typing import ClassVar

from textual.widget import Widget

from overhead_tui.summary.records import ScenarioResult


class ScenarioTab(Widget):
    """Base of the drill-in tabs."""

    DEFAULT_CSS = """
    ScenarioTab { height: 1fr; }
    """
    tab_title: ClassVar[str] = ""

    def __init__(self, result: ScenarioResult) -> None:
        super().__init__()
        self.result = result

    @classmethod
    def has_data(cls, result: ScenarioResult) -> bool:
        """Whether the tab has anything to show for ``result``."""
        raise NotImplementedError
