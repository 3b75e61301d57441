"""The screens' header: Textual's, with a title update that tolerates a recompose.

Textual 8's ``Header`` updates its title from watchers on the app's and the screen's title;
its update catches ``NoScreen`` but not ``NoMatches``, which it raises when a screen's
recompose removed the title a moment before a title change fires (seen once under load in
``tests/app/test_replayed_runs.py``, a fresh clone's suite, 2026-12-07).  This header
registers the same watchers with both caught; a title it cannot reach is one about to go.
"""

from __future__ import annotations

import contextlib

from textual.css.query import NoMatches
from textual.dom import NoScreen
from textual.events import Mount
from textual.widgets import Header
from textual.widgets._header import HeaderTitle


class SafeHeader(Header):
    """:class:`textual.widgets.Header` with the guarded title update (module doc)."""

    def _on_mount(self, event: Mount) -> None:
        event.prevent_default()  # Header's own handler registers unguarded watchers

        async def set_title() -> None:
            with contextlib.suppress(NoScreen, NoMatches):
                self.query_one(HeaderTitle).update(self.format_title())

        for node in (self.app, self.screen):
            self.watch(node, "title", set_title)
            self.watch(node, "sub_title", set_title)
