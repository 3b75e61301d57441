"""Modal dialogs: export, run settings and help.  They return values; the app acts on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Generic, TypeVar

from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    Markdown,
    Select,
    SelectionList,
    Static,
)
from textual.widgets._toggle_button import ToggleButton
from textual.widgets.option_list import OptionDoesNotExist

from overhead_tui.plugins.scenarios import SUPPORTED_DTYPES, ScenarioSpec
from overhead_tui.plugins.selection import DEFAULT_SET, SETS
from overhead_tui.summary.records import Settings
from overhead_tui.tui.actions import help_table


class MarkedSelectionList(SelectionList[str]):
    """A selection list whose ticked entries show ``X`` and unticked ones a blank box: the
    state reads without colour (Textual's draws ``X`` in both, told apart by colour only)."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        if selection.value in self._selected:
            return line
        segments = list(line)
        for index, segment in enumerate(segments):
            if segment.text == ToggleButton.BUTTON_INNER:
                segments[index] = Segment(" ", segment.style, segment.control)
                break
        return Strip(segments, line.cell_length)


class ExportScreen(ModalScreen[Path | None]):
    """Ask for a directory; dismisses with it (or None when cancelled)."""

    CSS_PATH = "modals.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, default_dir: Path) -> None:
        super().__init__()
        self.default_dir = default_dir

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Export summary.json, report.md and ladder.csv into:", classes="title")
            yield Input(str(self.default_dir), id="directory")
            with Horizontal(classes="buttons"):
                yield Button("Export", variant="primary", id="export")
                yield Button("Cancel", id="cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export":
            self._submit()
        else:
            self.dismiss(None)

    def on_input_submitted(self) -> None:
        self._submit()

    def _submit(self) -> None:
        text = self.query_one("#directory", Input).value.strip()
        self.dismiss(Path(text).expanduser() if text else self.default_dir)

    def action_cancel(self) -> None:
        self.dismiss(None)


R = TypeVar("R")


class FormDialog(ModalScreen[R | None], Generic[R]):
    """A dialog of fields that dismisses with what :meth:`read` makes of them (an ``R``), or
    None on Cancel or Escape; a problem :meth:`read` names is shown under the fields instead.
    A subclass yields its fields from :meth:`compose_fields` and names its button in
    ``APPLY``."""

    CSS_PATH = "modals.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    APPLY = "Apply"
    """The label of the button that submits."""
    DIALOG_ID: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id=self.DIALOG_ID):
            yield from self.compose_fields()
            yield Label("", id="error")
            with Horizontal(classes="buttons"):
                yield Button(self.APPLY, variant="primary", id="apply", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def compose_fields(self) -> ComposeResult:
        """The dialog's title and fields."""
        raise NotImplementedError

    def read(self) -> R | str:
        """What the fields ask for, or the problem with them in one line."""
        raise NotImplementedError

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
        else:
            self._submit()

    def on_input_submitted(self) -> None:
        self._submit()

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _submit(self) -> None:
        request = self.read()
        if isinstance(request, str):
            self.query_one("#error", Label).update(request)
        else:
            self.dismiss(request)


@dataclass(frozen=True)
class SweepRequest:
    """What the sweep dialog asks for: the matrix orders and the total budget (s)."""

    sizes: tuple[int, ...]
    budget_s: float


class SweepSettingsScreen(FormDialog[SweepRequest]):
    """The options of a size sweep started from the app (``overhead-tui sweep``'s ``--sizes``
    and ``--budget``); the scenarios, dtype and interpreter are the run settings' (``o``).

    Args:
        sizes: the default orders; budget_s: the default budget (s);
        scenarios: the names it will sweep (shown, chosen in the run settings).
    """

    APPLY = "Sweep"
    DIALOG_ID = "sweep-dialog"

    def __init__(self, sizes: tuple[int, ...], budget_s: float, scenarios: list[str]) -> None:
        super().__init__()
        self.sizes, self.budget_s, self.scenarios = sizes, budget_s, scenarios

    def compose_fields(self) -> ComposeResult:
        yield Label("Size sweep: GFLOP/s against n within a time budget", classes="title")
        with Horizontal(classes="row"):
            yield Label("sizes n", classes="field")
            yield Input(",".join(map(str, self.sizes)), id="sizes", compact=True)
        with Horizontal(classes="row"):
            yield Label("budget (s)", classes="field")
            yield Input(f"{self.budget_s:g}", id="budget", compact=True)
        yield Static(
            f"scenarios: {', '.join(self.scenarios)} (choose them in the settings, o)",
            classes="list-label",
        )

    def read(self) -> SweepRequest | str:
        text = self.query_one("#sizes", Input).value
        try:
            sizes = sorted({int(x) for x in text.replace(" ", "").split(",") if x})
            budget = float(self.query_one("#budget", Input).value)
        except ValueError:
            return "sizes are whole numbers like 8,16,32 and the budget a number of seconds"
        if not sizes or sizes[0] < 1 or not budget > 0:
            return "give at least one size of 1 or more and a budget above 0 s"
        return SweepRequest(tuple(sizes), budget)


class MarkedCheckbox(Checkbox):
    """A checkbox whose box is blank when unticked and ``X`` when ticked (Textual's draws
    ``X`` in both states, told apart by colour only)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        return "X" if self.value else " "

    def watch_value(self) -> None:
        super().watch_value()  # the -on class and the Changed message
        self.refresh()


@dataclass(frozen=True)
class InterpretersRequest:
    """The Pythons to run the ladder on (``--python PYTHON`` each) and whether each gets a venv
    with what the rungs need (False: ``--no-provision``, they are used as they are)."""

    pythons: tuple[str, ...]
    provision: bool = True


class InterpretersDialog(FormDialog[InterpretersRequest]):
    """The Pythons to run the ladder on beside this one (``overhead-tui interpreters``'s
    ``--python PYTHON``: a path, a name on PATH, ``3.12``, a pyenv version, ``3.13t``)."""

    APPLY = "Run"
    DIALOG_ID = "interpreters-dialog"

    def compose_fields(self) -> ComposeResult:
        yield Label("The ladder on other Pythons, beside this one", classes="title")
        with Horizontal(classes="row"):
            yield Label("Pythons", classes="field")
            yield Input(placeholder="3.12, 3.13 (paths, names or pyenv versions)",
                        id="pythons", compact=True)  # fmt: skip
        yield MarkedCheckbox("as they are: no venv (each needs numpy already)",
                             id="as-is", compact=True)  # fmt: skip
        yield Static(
            "Each gets its own venv with numpy and what the rungs need (pip), then the "
            "ladder of the run settings (o) runs on it in a separate process; the "
            "Interpreters screen opens when all have run (q stops them).",
            classes="list-label",
        )

    def read(self) -> InterpretersRequest | str:
        text = self.query_one("#pythons", Input).value
        pythons = [x.strip() for x in text.split(",") if x.strip()]
        if not pythons:
            return "name at least one Python, e.g. 3.12"
        provision = not self.query_one("#as-is", Checkbox).value
        return InterpretersRequest(tuple(pythons), provision)


class SettingsScreen(FormDialog[Settings]):
    """Edit size, dtype, repeats and the scenario selection; dismisses with new settings.

    Args:
        settings: the current settings.
        specs: every discovered scenario (for the selection list).
        check: returns an error message for settings that cannot run, or None.
    """

    APPLY = "Apply and run"
    DIALOG_ID = "settings-dialog"

    def __init__(
        self,
        settings: Settings,
        specs: list[ScenarioSpec],
        check: Callable[[Settings], str | None],
    ) -> None:
        super().__init__()
        self.settings = settings
        self.specs = specs
        self.check = check

    def compose_fields(self) -> ComposeResult:
        s = self.settings
        chosen = set(s.scenarios)
        yield Label("Run settings (applied to the next run)", classes="title")
        with Horizontal(classes="row"):
            yield Label("size n", classes="field")
            yield Input(
                str(s.size or ""),
                placeholder="each scenario's default",
                id="size",
                type="integer",
                compact=True,
            )
        with Horizontal(classes="row"):
            yield Label("dtype", classes="field")
            yield Select(
                [(d, d) for d in SUPPORTED_DTYPES],
                value=s.dtype,
                allow_blank=False,
                id="dtype",
                compact=True,
            )
        with Horizontal(classes="row"):
            yield Label("repeats", classes="field")
            yield Input(str(s.repeats), id="repeats", type="integer", compact=True)
        with Horizontal(classes="row"):
            yield Label("set", classes="field")
            yield Select(
                [(name, name) for name in set_choices(self.specs)],
                value=self._set_shown(),
                allow_blank=False,
                id="set",
                compact=True,
            )
        yield Label(
            "ticked scenarios run too (none ticked, no set: the default set)",
            classes="list-label",
        )
        yield MarkedSelectionList(
            *[(f"{sp.rung:>3} {sp.name}", sp.name, sp.name in chosen) for sp in self.specs],
            id="scenarios",
        )

    def _set_shown(self) -> str:
        """The set choice the dialog opens on: the settings' first set (several given with
        ``--set`` are kept unless the choice changes), else "only the ticked" or default."""
        s = self.settings
        return s.sets[0] if s.sets else (ONLY_TICKED if s.scenarios else DEFAULT_SET)

    def read(self) -> Settings | str:
        size_text = self.query_one("#size", Input).value.strip()
        repeats_text = self.query_one("#repeats", Input).value.strip()
        try:
            size = int(size_text) if size_text else None
            repeats = int(repeats_text)
        except ValueError:
            return "size and repeats must be whole numbers"
        if (size is not None and size < 1) or repeats < 1:
            return "size and repeats must be at least 1"
        dtype = self.query_one("#dtype", Select).value
        names = list(self.query_one("#scenarios", SelectionList).selected)
        chosen_set = str(self.query_one("#set", Select).value)
        unchanged = chosen_set == self._set_shown()  # several --set kept as they were
        settings = replace(  # --no-probes, --refresh-probes, the seed … survive a change
            self.settings,
            dtype=str(dtype),
            size=size,
            repeats=repeats,
            scenarios=[str(n) for n in names],
            sets=list(self.settings.sets)
            if unchanged
            else ([] if chosen_set == ONLY_TICKED else [chosen_set]),
        )
        return self.check(settings) or settings


ONLY_TICKED = "(only the ticked)"
"""The settings' set choice that runs only the ticked scenarios (not a set name: a set's name
is a Python-like name, ``plugins.scenarios.NAME_PATTERN``)."""


def set_choices(specs: list[ScenarioSpec]) -> list[str]:
    """The settings' set choice: the built-in sets (:data:`SETS`), those the scenario files
    declare besides, then :data:`ONLY_TICKED`."""
    declared = sorted({x for spec in specs for x in spec.sets} - set(SETS))
    return [*SETS, *declared, ONLY_TICKED]


HELP = (
    """\
# overhead-tui

Each row is a **scenario**: one implementation of C = A·B, a rung of the ladder. Each rung
removes a **layer** of overhead (boxing, bytecode dispatch, scalar execution, library call
layers, threads). Every number is measured in a separate worker process and validated against
numpy; an invalid result never shows a speed, nor does an `impossible` one (timed faster than
the hardware's theoretical peak: the product was cached or not computed).
The ladder runs the **default set**, one rung per layer removed; the settings (`o`) choose
another named set (`all`: every rung; `python`, `compilers`, `libraries`, `c`, `cpp`).

"""
    + help_table()
    + """
**Columns.** *median*: seconds per C = A·B. *GFLOP/s*: 2·n³ / median.
*× dense*: time per flop divided by the dense kernel's (numpy `A @ B` on all BLAS threads);
the bar shows it on a log scale, so each decade has the same width, and splits it by layer
(the model breakdown: `d` dispatch, `b` boxing, `s` subscripts, `c` calls, `l` library
layers, `x` scalar, `v` SIMD, `k` dense kernel, `m` memory, `p` threads, `o` other).
*state* `ok !` flags a number to doubt; the drill-in screen says which cause:
- the timing is unstable: CV ≥ 10 %, min or max more than 50 % from the median, samples
  shorter than 1 ms;
- the machine was busy: hypervisor CPU steal above 5 %, other processes using more than 15 %
  of the CPUs, or overhead-tui itself (the app or the CLI) using more than 2 % of one CPU
  while the samples were timed;
- the dense kernel reaches under half of the theoretical peak, with the likely cause: a BLAS
  kernel older than the CPU (`OPENBLAS_CORETYPE=Prescott` on an AVX2 machine), fewer BLAS
  threads than cores, or a thread variable set;
- a thread variable (`OPENBLAS_NUM_THREADS`, `OMP_NUM_THREADS`, `MKL_NUM_THREADS`,
  `NUMBA_NUM_THREADS`, ...) limits an all-threads rung to fewer threads than cores.
"""
)
"""The help screen's text; the key table comes from :data:`overhead_tui.tui.actions.ACTIONS`."""


class HelpScreen(ModalScreen[None]):
    """Keys and vocabulary."""

    CSS_PATH = "modals.tcss"
    BINDINGS = [Binding("escape,q,question_mark", "close", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog wide"):
            yield Markdown(HELP)
            yield Button("Close", id="close")

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
