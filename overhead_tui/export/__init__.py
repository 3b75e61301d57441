"""Exporters: one module per format, each rendering a :class:`RunSummary` to text.

Pick one by name or by the output file's extension with :func:`exporter_for`.
"""

from __future__ import annotations

import errno
from pathlib import Path

from overhead_tui.errors import UsageError
from overhead_tui.export.base import Exporter
from overhead_tui.export.csv import CsvExporter
from overhead_tui.export.json import JsonExporter
from overhead_tui.export.markdown import MarkdownExporter
from overhead_tui.summary.records import RunSummary

EXPORTERS: dict[str, type[Exporter]] = {
    "json": JsonExporter,
    "markdown": MarkdownExporter,
    "csv": CsvExporter,
}
"""Format name -> exporter class."""


def exporter_for(path: Path, format: str | None = None) -> Exporter:
    """The exporter for ``format``, or for ``path``'s extension when ``format`` is None.

    Raises:
        UsageError: unknown format or extension.
    """
    if format is not None:
        if format not in EXPORTERS:
            raise UsageError(f"unknown export format {format!r}; use one of {', '.join(EXPORTERS)}")
        return EXPORTERS[format]()
    for cls in EXPORTERS.values():
        if path.name.endswith(cls.output_file_extensions):
            return cls()
    raise UsageError(f"cannot tell the export format of {path.name}; use .json, .md or .csv")


def export(summary: RunSummary, path: Path, format: str | None = None) -> Path:
    """Render ``summary`` into ``path`` (UTF-8) and return the path.

    Raises:
        UsageError: unknown format, or the file cannot be written.
    """
    exporter = exporter_for(path, format)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(exporter.render(summary), encoding="utf-8")
    except OSError as exc:
        raise write_failure(path, exc) from None
    return path


def write_failure(path: Path, exc: OSError) -> UsageError:
    """The one-line error for a file that could not be written, with the fix its cause calls
    for: space for a full device, a writable path for anything else (no permission, a
    read-only or virtual file system such as ``/proc``, a missing folder)."""
    full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    fix = (
        "free space on its device, or give a path on another one"
        if full
        else "give a path in a folder you can write to"
    )
    return UsageError(f"cannot write {path}: {exc.strerror or exc}; fix: {fix}")


__all__ = ["EXPORTERS", "Exporter", "export", "exporter_for", "write_failure"]
