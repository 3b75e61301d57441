"""The Rich tables the screens and tabs print: one call names the columns and their alignment."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from rich.box import Box
from rich.table import Table


def column_table(
    headers: Iterable[str], left: Collection[str] = (), box: Box | None = None, **options: Any
) -> Table:
    """A Rich table with one column per header, right-aligned (numbers) but for the headers in
    ``left`` (names and words); borderless unless given a ``box``; ``options`` go to
    :class:`rich.table.Table` (padding, title, caption …)."""
    table = Table(box=box, **options)
    for header in headers:
        table.add_column(header, justify="left" if header in left else "right")
    return table
