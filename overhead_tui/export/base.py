"""The common base of exporters (modelled on pyinstrument's renderers)."""

from __future__ import annotations

from abc import ABC, abstractmethod

from overhead_tui.summary.records import RunSummary


class Exporter(ABC):
    """Renders a summary to text in one format."""

    output_file_extensions: tuple[str, ...] = ()
    """File name endings that select this exporter, the first one the default."""

    @abstractmethod
    def render(self, summary: RunSummary) -> str:
        """Return the whole file's text (UTF-8, ending in a newline)."""
