"""The Watch screen: a scenario file measured again on each save (``overhead-tui watch``), and
the dialog that asks which file.

The screen only shows: the app measures and waits for saves (``tui/app_watch.py``) and hands
it each save's lines (``present/watch_text.py``).  While a save is measured the screen paints
one status line and then nothing until the result: no spinner, no timer.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Input, Label, RichLog, Static

from overhead_tui.engine.watch import resolve_watched_file
from overhead_tui.errors import UsageError
from overhead_tui.tui.screens.base import BaseScreen
from overhead_tui.tui.screens.modals import FormDialog

VERDICT_STYLES = {"faster": "bold green", "slower": "bold red", "not measured": "yellow"}
"""How a save's first line is marked by its verdict (the words stay: colour is extra)."""
MEASURING = "measuring: validated, then timed (the screen stays still while it is timed) …"


class WatchScreen(BaseScreen):
    """The measurements of one watched file, newest last, under a status line ("measuring",
    "watching for saves").  ``escape`` stops the watch and goes back."""

    CSS_PATH = "watch.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "stop", "Stop watching")]

    def __init__(self, path: Path, how: str) -> None:
        """``path``: the watched file; ``how``: its settings in a few words (n, dtype)."""
        super().__init__()
        self.path = path
        self.how = how
        self.lines: list[str] = []
        """Every line shown so far (what the tests and the export read)."""

    def compose_body(self) -> ComposeResult:
        yield Static(
            f"Watching {self.path} ({self.how}); save a change to measure again.", id="file"
        )
        yield Static(MEASURING, id="status")  # the first thing a watch does
        yield RichLog(id="saves", wrap=True, markup=False, auto_scroll=True)

    def on_mount(self) -> None:
        self.title = f"watch {self.path.name}"

    def action_stop(self) -> None:
        """Leave the screen: the app stops the watch (the callback it was pushed with)."""
        self.dismiss(None)

    def measuring(self) -> None:
        """Say a save is being measured (painted once, before the worker times it)."""
        if not self.is_mounted:
            return  # left while the worker was on its way
        self.query_one("#status", Static).update(MEASURING)

    def waiting(self) -> None:
        """Say the watch waits for the next save."""
        if not self.is_mounted:
            return
        self.query_one("#status", Static).update(
            "watching for saves (escape stops; edit the file in your editor)"
        )

    def show(self, lines: list[str]) -> None:
        """Add one save's lines (its first line marked by the verdict)."""
        self.lines.extend(lines)
        if not self.is_mounted:
            return
        log = self.query_one("#saves", RichLog)
        for index, line in enumerate(lines):
            text = Text(line)
            if index == 0:
                style = next((s for w, s in VERDICT_STYLES.items() if w in line), "bold")
                text.stylize(style)
            log.write(text)


class WatchFileDialog(FormDialog[Path]):
    """Ask for the scenario file to watch; dismisses with its resolved path."""

    APPLY = "Watch"
    DIALOG_ID = "watch-dialog"

    def __init__(self, default: str = "") -> None:
        super().__init__()
        self.default = default

    def compose_fields(self) -> ComposeResult:
        yield Label("Watch a scenario file: measured again on each save", classes="title")
        with Horizontal(classes="row"):
            yield Label("file", classes="field")
            yield Input(self.default, placeholder="my_kernel.py", id="file", compact=True)
        yield Static(
            "`overhead-tui new NAME --from python_naive` writes one to start from.",
            classes="list-label",
        )

    def read(self) -> Path | str:
        text = self.query_one("#file", Input).value.strip()
        if not text:
            return "Name a .py scenario file."
        try:
            return resolve_watched_file(Path(text).expanduser())
        except UsageError as exc:
            return str(exc)
