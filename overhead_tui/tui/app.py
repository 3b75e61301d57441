"""The Textual app: runs the ladder live through the engine and shows the results.

Data flows one way: the runner (in a thread worker) yields engine events, which are posted to
the app as messages and applied to the :class:`~overhead_tui.present.live.LiveLadder` the app
holds in its reactive ``ladder``; the screens watch it and redraw what the event changed.
Run it for development with ``textual run --dev overhead_tui.tui.app:OverheadApp``.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from rich.markup import escape
from textual import work
from textual.app import SystemCommand
from textual.filter import Monochrome, NoColor
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import get_current_worker

from overhead_tui.analysis.attribution import attach_profile
from overhead_tui.analysis.derive import complete_loaded
from overhead_tui.engine.events import Event, RunFinished
from overhead_tui.engine.plan import planned_summary
from overhead_tui.engine.run_dir import new_run_dir
from overhead_tui.engine.runner import Runner
from overhead_tui.engine.spawn import Cancel
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import ScenarioSpec, discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.live import LiveLadder, quiet_events, run_end_text
from overhead_tui.present.terminal import colour_wanted
from overhead_tui.profilers.profile import profile_scenario
from overhead_tui.profilers.registry import detect
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.summary.profile import ProfileRecord
from overhead_tui.summary.records import SUMMARY_FILE, RunSummary, Settings
from overhead_tui.tui.actions import ACTIONS, Action, bindings, palette, screen_class
from overhead_tui.tui.app_export import ExportActions
from overhead_tui.tui.app_state import RunnerFactory, RunSource
from overhead_tui.tui.app_stop import StopActions
from overhead_tui.tui.app_sweep import InterpreterActions, SweepActions
from overhead_tui.tui.app_watch import WatchActions
from overhead_tui.tui.screens.capabilities import CapabilitiesScreen
from overhead_tui.tui.screens.interpreters import InterpretersScreen
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.modals import (
    HelpScreen,
    SettingsScreen,
)
from overhead_tui.tui.screens.scenario import ScenarioScreen
from overhead_tui.tui.screens.shapes import ShapesScreen
from overhead_tui.tui.screens.sweep import SweepScreen
from overhead_tui.tui.widgets.ladder_table import LadderTable


def real_runner(specs: list[ScenarioSpec], settings: Settings, run_dir: Path) -> RunSource:
    """A :class:`Runner` of ``specs`` whose CPU warnings name the app."""
    return Runner(specs, settings, run_dir, observer="the app")


def _no_run() -> LiveLadder:
    """The ladder before the app is set up: no scenarios, nothing running."""
    return LiveLadder(RunSummary(settings=Settings()), finished=True)


class OverheadApp(StopActions, SweepActions, InterpreterActions, WatchActions, ExportActions):
    """The overhead-tui app.

    Args:
        settings: what to run (size, dtype, repeats, selection, folders).
        summary: a saved run to show instead of running (``overhead-tui open``).
        autorun: start the ladder on launch (ignored when ``summary`` is given).
        runs_dir: where new run directories go (default: the user data dir).
        settings_problem: validates settings from the settings dialog (None = fine).
        clock: seconds, for the elapsed-time display; injectable for tests.
        interpreters: a combined summary (``overhead-tui interpreters``) to show on the
            *Interpreters* screen, opened on top at launch.
        runner_factory: makes each run (default :func:`real_runner`); tests about the UI
            pass one that replays recorded events without worker processes.
        watch: a scenario file to watch on launch (``overhead-tui watch FILE.py --app``).
    """

    CSS_PATH = "app.tcss"
    TITLE = "overhead-tui"
    SUB_TITLE = "matrix-multiply ladder"
    BINDINGS = bindings()  # the keys, the palette and the help: tui/actions.py

    ladder: reactive[LiveLadder] = reactive(
        _no_run, always_update=True, init=False, repaint=False, layout=False
    )
    """The state the screens draw: a new one for a new plan, changed in place (then
    ``mutate_reactive``) by each engine event; its ``changed`` names the row to redraw."""

    class EngineEvent(Message):
        """An engine event, posted from the run's thread worker."""

        def __init__(self, event: Event) -> None:
            super().__init__()
            self.event = event

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        summary: RunSummary | None = None,
        autorun: bool = True,
        runs_dir: Path | None = None,
        settings_problem: Callable[[Settings], str | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        interpreters: InterpretersSummary | None = None,
        runner_factory: RunnerFactory = real_runner,
        watch: Path | None = None,
    ) -> None:
        super().__init__()
        self.watch_on_launch = watch
        self.interpreters = interpreters
        self.settings = settings or (summary.settings if summary else Settings())
        if summary is not None:
            complete_loaded(summary)
        self.saved = summary
        self.autorun = autorun and summary is None and watch is None
        self.runs_dir = runs_dir
        self.settings_problem = settings_problem or (lambda s: None)
        self.clock = clock
        self.runner_factory = runner_factory
        self.runner = None
        self.sweep = None
        self._profiling: Cancel | None = None
        self.all_specs: list[ScenarioSpec] = []
        self.discovery_error: str | None = None
        shown = LiveLadder(summary or RunSummary(settings=self.settings), finished=True)
        self.set_reactive(OverheadApp.ladder, shown)

    def _drop_colour(self) -> None:
        """No colour at all (``NO_COLOR`` or ``TERM=dumb``): Textual's own ``NO_COLOR`` filter
        turns colours grey, still 24-bit escapes; this one leaves the terminal's defaults."""
        self._filters = [f for f in self._filters if not isinstance(f, Monochrome)]
        self._filters.append(NoColor())

    def on_mount(self) -> None:
        self.catch_stop_signals()  # a stop signal is Ctrl-C: tui/app_stop.py
        if not colour_wanted() and not self.is_headless:  # tests and snapshots keep colour
            self._drop_colour()
        try:
            self.all_specs = discover([Path(d) for d in self.settings.scenarios_dirs])
        except UsageError as exc:
            self.discovery_error = str(exc)
        if self.saved is None:
            self.set_reactive(OverheadApp.ladder, LiveLadder(self._planned()))
        self.push_screen(LadderScreen(self.ladder, self.clock))
        if self.saved is not None and self.saved.sweep:
            self.push_screen(SweepScreen(self.saved))
        if self.saved is not None and self.saved.shapes:
            self.push_screen(ShapesScreen(self.saved))
        if self.interpreters is not None:
            self.push_screen(InterpretersScreen(self.interpreters))
        if self.discovery_error and self.saved is None:
            self.notify(self.discovery_error, severity="error", timeout=10)
        elif self.autorun:
            self.start_run()
        elif self.watch_on_launch is not None:
            self.start_watch(self.watch_on_launch)

    def _planned(self) -> RunSummary:
        try:
            specs = select(self.all_specs, self.settings.scenarios, self.settings.sets)
        except UsageError:
            specs = self.all_specs
        return planned_summary(specs, self.settings)

    @property
    def ladder_screen(self) -> LadderScreen:
        """The home screen (always at the bottom of the stack)."""
        return next(s for s in self.screen_stack if isinstance(s, LadderScreen))

    # -- running ---------------------------------------------------------------------------

    def start_run(self) -> None:
        """Start a new run of the selected scenarios in a thread worker."""
        if self.ladder.running or self.watching is not None:
            self.notify("A run or a watch is already in progress.")
            return
        if self.discovery_error:
            self.notify(self.discovery_error, severity="error", timeout=10)
            return
        try:
            specs = select(self.all_specs, self.settings.scenarios, self.settings.sets)
            run_dir = new_run_dir(self.runs_dir)
        except (UsageError, OSError) as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        self.runner = self.runner_factory(specs, self.settings, run_dir)
        self.ladder.start(self.clock())
        self.mutate_reactive(OverheadApp.ladder)
        self.sub_title = str(run_dir)
        self._drive(self.runner)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _drive(self, runner: RunSource) -> None:
        worker = get_current_worker()
        for event in quiet_events(runner.events()):  # the app sleeps while samples are timed
            if worker.is_cancelled:
                runner.cancel()
            self.post_message(self.EngineEvent(event))

    def on_overhead_app_engine_event(self, message: EngineEvent) -> None:
        """Apply one engine event to the ladder; the screens watching it redraw what changed
        (inside a timed window only its first event arrives, and it paints nothing)."""
        event = message.event
        self.ladder.apply(event)
        home = next((s for s in self.screen_stack if isinstance(s, LadderScreen)), None)
        if home is None or not home.query(LadderTable):
            return  # the app is closing: its widgets are going (the ladder keeps the state)
        self.mutate_reactive(OverheadApp.ladder)
        if isinstance(event, RunFinished):
            self._announce(event)

    def _announce(self, event: RunFinished) -> None:
        """How the run ended: the ladder's status line says it (a toast there would cover the
        layer legend); on any other screen, a toast says it too."""
        if isinstance(self.screen, LadderScreen):
            return
        failed = any(s.status not in ("ok", "skipped") for s in event.summary.scenarios)
        self.notify(
            "Run " + run_end_text(event.summary, event.cancelled),
            severity="error" if failed else "information",
            timeout=8,
        )

    # -- actions ---------------------------------------------------------------------------

    def action_rerun(self) -> None:
        """Run the ladder again with the current settings."""
        self.start_run()

    def on_ladder_screen_scenario_chosen(self, message: LadderScreen.ScenarioChosen) -> None:
        self.open_scenario(message.name)

    def open_scenario(self, name: str) -> None:
        """Drill into scenario ``name``."""
        if name in self.ladder.rows:
            self.push_screen(ScenarioScreen(self.ladder.rows[name]))

    def action_settings(self) -> None:
        """Open the settings dialog; applying starts a new run."""
        if not self.all_specs:
            self.notify(self.discovery_error or "No scenarios found.", severity="error")
            return
        dialog = SettingsScreen(self.settings, self.all_specs, self.settings_problem)
        self.push_screen(dialog, self._apply_settings)

    def _apply_settings(self, settings: Settings | None) -> None:
        if settings is None:
            return
        if self.ladder.running:
            self.notify("Stop or wait for the current run first (settings kept for the next).")
            self.settings = settings
            return
        self.settings = settings
        self.ladder = LiveLadder(self._planned())  # a new plan: the screens redraw it all
        self.start_run()

    def _show(self, screen_type: type[Screen[Any]], make: Callable[[], Screen[Any]]) -> None:
        """Push ``make()`` unless a ``screen_type`` is already on top (a second key press must
        not stack a copy that then needs a second escape)."""
        if not isinstance(self.screen, screen_type):
            self.push_screen(make())

    def action_capabilities(self) -> None:
        """Show which profiler backends work here."""
        self._show(CapabilitiesScreen, lambda: CapabilitiesScreen(detector=detect))

    def action_profile(self) -> None:
        """Profile the scenario on screen (or under the cursor) with every available backend."""
        top = self.screen
        name = (
            top.scenario_name
            if isinstance(top, ScenarioScreen)
            else (self.ladder_screen.selected_name)
        )
        if name is None:
            return
        if self.ladder.running:
            self.notify("Profiling waits for the run to finish (it would disturb the timings).")
            return
        spec = next((s for s in self.all_specs if s.name == name), None)
        if spec is None:
            self.notify(
                f"{name} is not among the scenarios found here; cannot profile it.",
                severity="error",
            )
            return
        self.notify(
            f"Profiling {name} with perf, py-spy, callgrind and Scalene (about half a minute) ...",
            timeout=6,
        )
        row = self.ladder.rows[name].result
        self._profile(spec, row.n, row.blas_threads)

    @work(thread=True, exclusive=True, group="profile", exit_on_error=False)
    def _profile(self, spec: ScenarioSpec, n: int, blas_threads: int | None = None) -> None:
        cancel = self._profiling = Cancel()
        result = profile_scenario(
            spec,
            n,
            self.settings.dtype,
            duration_s=2.0,
            python=self.settings.python,
            cancel=cancel,
            blas_threads=blas_threads,
        )
        if cancel.is_set():  # quitting: the profile is incomplete and nobody is waiting
            return
        self.call_from_thread(self._profiled, spec.name, result)

    def _profiled(self, name: str, profile: ProfileRecord) -> None:
        row = self.ladder.rows.get(name)
        if row is None:
            return
        result = copy.copy(row.result)  # a new result: the screens showing it recompose
        result.profile = profile
        attach_profile(result, self.ladder.summary)
        self.ladder.land(result)
        run_dir = self.ladder.summary.run_dir
        if run_dir:
            try:
                self.ladder.summary.save(Path(run_dir) / SUMMARY_FILE)
            except OSError as exc:
                self.notify(f"Profile kept in memory only: {exc}", severity="warning")
        states = {k: v.status for k, v in profile.backends.items()}
        self.notify(
            f"Profiled {name}: " + ", ".join(f"{k} {v}" for k, v in states.items()), timeout=8
        )
        self.mutate_reactive(OverheadApp.ladder)

    def action_interpreters(self) -> None:
        """Show the same ladder on several Pythons, if the app was opened on such a summary."""
        if self.interpreters is None:
            self.notify("No interpreters summary here: run `overhead-tui interpreters --app`.")
            return
        combined = self.interpreters
        self._show(InterpretersScreen, lambda: InterpretersScreen(combined))

    def action_help(self) -> None:
        """Show keys and vocabulary."""
        self._show(HelpScreen, HelpScreen)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for entry in palette():
            if entry.title is None or (entry.needs and getattr(self, entry.needs) is None):
                continue  # not in the palette, or e.g. no interpreters summary in this app
            yield SystemCommand(
                entry.title, entry.palette_help, getattr(self, f"action_{entry.action}")
            )
        for row in self.ladder.ordered():
            yield SystemCommand(  # palette text is markup: names and titles are escaped
                f"Open scenario {escape(row.result.name)}",
                escape(row.result.title),
                partial(self.open_scenario, row.result.name),
            )


def _show_summary_screen(entry: Action) -> Callable[[OverheadApp], None]:
    """``OverheadApp.action_<entry.action>``: push the record's screen on the run's summary."""

    def action(self: OverheadApp) -> None:
        screen_type = screen_class(entry)
        self._show(screen_type, lambda: screen_type(self.ladder.summary))

    action.__name__ = f"action_{entry.action}"
    action.__doc__ = f"Show {entry.title}: {entry.palette_help}."
    return action


for _entry in ACTIONS:  # a screen of the run's summary is one record in tui/actions.py
    if _entry.screen is not None:
        setattr(OverheadApp, f"action_{_entry.action}", _show_summary_screen(_entry))
