"""The summary itself as JSON: the lossless format, readable back with ``RunSummary.load``."""

from __future__ import annotations

from overhead_tui.export.base import Exporter
from overhead_tui.summary.records import RunSummary


class JsonExporter(Exporter):
    """Sorted, indented JSON of the whole summary (schema_version 1)."""

    output_file_extensions = (".json",)

    def render(self, summary: RunSummary) -> str:
        return summary.dumps()
