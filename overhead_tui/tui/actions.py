"""The app's actions in one table: the key bindings, the command palette and the help screen's
key table are all built from :data:`ACTIONS`.

Adding a screen that shows the run's summary is one record here with its ``screen``
(``module:Class`` under ``tui/screens/``): the app's ``action_<name>`` is generated from it, and
the footer, the palette (ctrl+p) and the help (``?``) follow.  Other actions are a record plus
their ``action_<name>`` method on the app.  The README's key
table is checked against this one by ``tests/app/test_tui_structure.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class Action:
    """One thing the user can do: a key, a palette entry, a help line, or several of these.

    Attributes:
        action: the app's action name (the method ``OverheadApp.action_<action>``); None for a
            key that a screen or Textual itself handles (documented in the help only).
        key: Textual's key name (``"question_mark"``); None for a palette-only action.
        label: the footer's label of the key.
        title: the command palette's title; None when the action is not in the palette
            (Textual's own palette already has "Quit").
        palette_help: the line under the title in the palette.
        help: the help screen's description of the key; None when the key is not described
            (only for palette-only actions).
        show: the key is shown in the footer.
        key_display: how the key is written (footer, help, README) when not its name.
        priority: the key works even while a text field has the focus.
        needs: an app attribute the palette entry needs (not None), or None for always.
        screen: ``module:Class`` of a screen under ``tui/screens/`` that shows the run's
            summary (built as ``Class(summary)``): the app's ``action_<action>`` is generated
            from the record, so such a screen needs no code in the app.
    """

    action: str | None
    key: str | None
    label: str = ""
    title: str | None = None
    palette_help: str = ""
    help: str | None = None
    show: bool = False
    key_display: str | None = None
    priority: bool = False
    needs: str | None = None
    screen: str | None = None

    @property
    def display(self) -> str:
        """The key as the user reads it: ``?`` rather than ``question_mark``."""
        return self.key_display or self.key or ""

    @property
    def is_binding(self) -> bool:
        """The app binds this key (rather than a screen or Textual)."""
        return self.action is not None and self.key is not None


ACTIONS: tuple[Action, ...] = (
    Action(None, "enter", help="drill into the selected scenario"),
    Action(
        "rerun",
        "r",
        "Run",
        "Run the ladder",
        "Run the selected scenarios again",
        "run the ladder again (new run directory)",
        show=True,
    ),
    Action(
        "export",
        "e",
        "Export",
        "Export",
        "Write summary.json, report.md and ladder.csv",
        "export summary.json, report.md and ladder.csv",
        show=True,
    ),
    Action(
        "settings",
        "o",
        "Settings",
        "Settings",
        "Size, dtype, repeats, scenarios",
        "settings: size, dtype, repeats, scenarios",
        show=True,
    ),
    Action(
        "stop_run",
        None,
        title="Stop the run",
        palette_help="Kill the running worker; keep finished results",
    ),
    Action(
        "waterfall",
        "w",
        "Waterfall",
        "Waterfall",
        "The ladder as successive removals of layers",
        "waterfall: the ladder as successive removals of layers",
        show=True,
        screen="waterfall:WaterfallScreen",
    ),
    Action(
        "profile",
        "p",
        "Profile",
        "Profile scenario",
        "perf, py-spy, callgrind and Scalene on the selected scenario",
        "profile the scenario (perf, py-spy, callgrind, Scalene): Native, Stacks, Lines tabs",
        show=True,
    ),
    Action(
        "capabilities",
        "c",
        "Profilers",
        "Profilers",
        "Which profiler backends work here",
        "which profiler backends work here, and how to fix the others",
    ),
    Action(
        "roofline",
        "l",
        "Roofline",
        "Roofline",
        "Rungs against the compute and bandwidth ceilings",
        "roofline: each rung's GFLOP/s against its arithmetic intensity and the ceilings",
        show=True,
        screen="roofline:RooflineScreen",
    ),
    Action(
        "machines",
        "m",
        "Machines",
        "Machines",
        "Reference hardware (A100, H100, EPYC …) and the tile calculator",
        "machines: this machine's limits beside reference hardware; the tile calculator",
        screen="machines:MachinesScreen",
    ),
    Action(
        "sweep",
        "s",
        "Sweep",
        "Sweep",
        "GFLOP/s against n (overhead-tui sweep)",
        "size sweep: GFLOP/s against n (runs saved by `overhead-tui sweep`)",
        screen="sweep:SweepScreen",
    ),
    Action(
        "start_sweep",
        "S",
        "New sweep",
        "Start a size sweep",
        "GFLOP/s against n for the chosen scenarios within a time budget",
        "start a size sweep (sizes and budget; the scenarios of the settings, o)",
    ),
    Action(
        "watch",
        "W",
        "Watch",
        "Watch a scenario file",
        "Measure your scenario file again on each save (overhead-tui watch)",
        "watch a scenario file: measured again on each save, with what changed and why",
    ),
    Action(
        "paper",
        "y",
        "Paper",
        "Paper",
        "The published ladder (Leiserson et al. 2020) beside ours",
        "the published ladder (Leiserson et al. 2020) beside this run's",
        screen="paper:PaperScreen",
    ),
    Action(
        "interpreters",
        "i",
        "Interpreters",
        "Interpreters",
        "The ladder on several Pythons side by side",
        "interpreters: the ladder on several Pythons side by side "
        "(`overhead-tui interpreters --app`)",
        needs="interpreters",
    ),
    Action(
        "run_interpreters",
        "I",
        "Other Pythons",
        "Run the ladder on other Pythons",
        "overhead-tui interpreters: the ladder on each Python named, beside this one",
        "run the ladder on other Pythons (venvs with pip; the Interpreters screen at the end)",
    ),
    Action(
        "shapes",
        None,
        title="Shapes",
        palette_help="GFLOP/s against the batch m (overhead-tui shapes)",
        screen="shapes:ShapesScreen",
    ),
    Action(None, "ctrl+p", help='command palette (every action, and "open scenario …")'),
    Action(None, "escape", help="back"),
    Action(
        "help",
        "question_mark",
        "Help",
        "Help",
        "Keys and vocabulary",
        "this help: keys and vocabulary",
        show=True,
        key_display="?",
    ),
    Action(
        "quit",
        "q",
        "Quit",
        help="quit (stops the running worker; finished results are kept)",
        show=True,
    ),
    Action(
        "interrupt",
        "ctrl+c",
        "Interrupt",
        "Interrupt",
        "Stop what runs and quit with exit 130, as Ctrl-C does in every command",
        "interrupt: quit as q does, with exit 130, even while a text field has the focus",
        priority=True,
    ),
)
"""Every action, in the order of the footer, the palette and the help's key table."""


def bindings(actions: tuple[Action, ...] = ACTIONS) -> list[BindingType]:
    """The app's ``BINDINGS``: one per record with both a key and an app action."""
    return [
        Binding(
            a.key,
            a.action,
            a.label,
            show=a.show,
            key_display=a.key_display,
            priority=a.priority,
        )
        for a in actions
        if a.key is not None and a.action is not None
        if a.is_binding
    ]


def palette(actions: tuple[Action, ...] = ACTIONS) -> Iterator[Action]:
    """The records that are command palette entries (title, help, then ``action_<action>``)."""
    return (a for a in actions if a.title is not None and a.action is not None)


def screen_class(action: Action) -> type:
    """The screen class a record's ``screen`` names (imported when first shown)."""
    import importlib

    assert action.screen is not None
    module, _, name = action.screen.partition(":")
    return getattr(importlib.import_module(f"overhead_tui.tui.screens.{module}"), name)


def help_table(actions: tuple[Action, ...] = ACTIONS) -> str:
    """The help screen's key table (Markdown): one row per described key."""
    rows = [f"| `{a.display}` | {a.help} |" for a in actions if a.key and a.help]
    return "\n".join(["| key | action |", "|---|---|", *rows]) + "\n"
