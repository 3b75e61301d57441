"""Starting the budgeted and multi-interpreter runs from the app.

* A size sweep (``S``): the dialog for its sizes and budget, the sweep run in a thread (each
  measured point announced between workers, never inside a timed window), and the Sweep
  screen on its result.  The same ``sweeps.sizes.SizeSweep`` as ``overhead-tui sweep``; the
  scenarios, dtype and interpreter are the run settings'.
* Other Pythons (``I``): ``overhead-tui interpreters`` run as a separate process, its combined
  summary on the Interpreters screen.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.worker import get_current_worker

from overhead_tui.engine.run_dir import new_run_dir
from overhead_tui.errors import UsageError
from overhead_tui.plugins.selection import select
from overhead_tui.tui.app_state import AppState
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.modals import (
    InterpretersDialog,
    InterpretersRequest,
    SweepRequest,
    SweepSettingsScreen,
)
from overhead_tui.tui.screens.sweep import SweepScreen

if TYPE_CHECKING:
    from overhead_tui.engine.spawn import Cancel, CommandResult
    from overhead_tui.sweeps.sizes import SizeSweep


class SweepActions(AppState):
    """The app's size-sweep actions (``OverheadApp`` is one: they use its run settings,
    scenarios and run folder; ``self.sweep`` is the running sweep or None)."""

    def action_start_sweep(self) -> None:
        """Ask for a size sweep's sizes and budget, then run it (``overhead-tui sweep``)."""
        from overhead_tui.sweeps.sizes import DEFAULT_BUDGET_S, DEFAULT_SCENARIOS, DEFAULT_SIZES

        if self.ladder.running or self.sweep is not None:
            self.notify("Stop or wait for the current run first.")
            return
        names = list(self.settings.scenarios) or list(DEFAULT_SCENARIOS)
        dialog = SweepSettingsScreen(tuple(DEFAULT_SIZES), DEFAULT_BUDGET_S, names)
        self.push_screen(dialog, lambda request: self._start_sweep(request, names))

    def _start_sweep(self, request: SweepRequest | None, names: list[str]) -> None:
        from overhead_tui.sweeps.sizes import SWEEP_MIN_SAMPLE_S, SWEEP_REPEATS, SizeSweep

        if request is None:
            return
        try:
            specs = select(self.all_specs, names)
            run_dir = new_run_dir(self.runs_dir)
        except (UsageError, OSError) as exc:
            self.notify(str(exc), severity="error", timeout=10)
            return
        settings = replace(
            self.settings, repeats=SWEEP_REPEATS, min_sample_s=SWEEP_MIN_SAMPLE_S, size=None
        )
        self.sweep = SizeSweep(specs, request.sizes, request.budget_s, settings, run_dir)
        self._show_activity(
            f"size sweep: {', '.join(names)} at n = {', '.join(map(str, request.sizes))} "
            f"within {request.budget_s:g} s; its screen opens when it ends (q stops it)"
        )
        self._drive_sweep(self.sweep)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _drive_sweep(self, sweep: SizeSweep) -> None:
        """Run the sweep; each measured point is announced between workers (never inside a
        timed window), the Sweep screen opens on the result."""
        from overhead_tui.sweeps.budgeted import PointMeasured

        worker = get_current_worker()
        measured = 0
        for event in sweep.events():
            if worker.is_cancelled:
                sweep.cancel()
            if isinstance(event, PointMeasured):  # on the ladder's status line, not a toast
                point, measured = event.point, measured + 1
                speed = f"{point.gflops:.3g} GFLOP/s" if point.gflops else point.status
                text = (
                    f"size sweep: {measured} point(s) so far, the last {point.scenario} "
                    f"n={getattr(point, 'n', '?')}: {speed} (q stops it)"
                )
                self.call_from_thread(self._show_activity, text)
        self.call_from_thread(self._swept, sweep)

    def _show_activity(self, text: str | None) -> None:
        """The sweep's progress on the ladder's status line (None: it is over)."""
        for screen in self.screen_stack:
            if isinstance(screen, LadderScreen):
                screen.show_activity(text)

    def _swept(self, sweep: SizeSweep) -> None:
        self.sweep = None
        self._show_activity(None)
        if sweep.cancelled:
            self.notify(f"Sweep stopped; saved in {sweep.summary.run_dir}", timeout=8)
        self.push_screen(SweepScreen(sweep.summary))


INTERPRETERS_TIMEOUT_S = 4 * 3600.0
"""The longest an interpreters run started from the app may take (venvs, pip, the ladders)."""


class InterpreterActions(AppState):
    """Running the ladder on other Pythons from the app (``I``): ``overhead-tui interpreters``
    in a separate process of the tool (its own process group, through ``engine.spawn``), so
    the app observes nothing while it measures; its combined summary opens on the
    Interpreters screen."""

    """The ``spawn.Cancel`` of the running interpreters run, or None."""

    def action_run_interpreters(self) -> None:
        """Ask for the Pythons, then run the ladder on each of them beside this one."""
        if self.ladder.running or self.others is not None:
            self.notify("Stop or wait for the current run first.")
            return
        self.push_screen(InterpretersDialog(), self._start_interpreters)

    def _start_interpreters(self, request: InterpretersRequest | None) -> None:
        if request is None:
            return
        pythons = list(request.pythons)
        import sys

        from overhead_tui.engine.run_dir import default_runs_dir
        from overhead_tui.engine.spawn import Cancel

        parent = self.runs_dir or default_runs_dir()
        parent.mkdir(parents=True, exist_ok=True)
        out = parent / f"interpreters-{'-'.join(p.replace('/', '_') for p in pythons)}.json"
        s = self.settings
        argv = [sys.executable, "-m", "overhead_tui", "interpreters", "--out", str(parent)]
        argv += [x for p in pythons for x in ("--python", p)]
        argv += [x for name in s.scenarios for x in ("--scenario", name)]
        argv += [x for d in s.scenarios_dirs for x in ("--scenarios-dir", d)]
        argv += ["--size", str(s.size)] if s.size else []
        argv += ["--dtype", s.dtype, "--repeats", str(s.repeats), "--json", str(out)]
        argv += [] if s.probes else ["--no-probes"]
        argv += [] if request.provision else ["--no-provision"]
        self.others = Cancel()
        self.notify(f"Running the ladder on {', '.join(pythons)} beside this Python …", timeout=8)
        self._drive_interpreters(argv, out, self.others)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _drive_interpreters(self, argv: list[str], out: Path, cancel: Cancel) -> None:
        from overhead_tui.engine.spawn import run_command

        result = run_command(argv, INTERPRETERS_TIMEOUT_S, cancel=cancel)
        self.call_from_thread(self._ran_interpreters, result, out)

    def _ran_interpreters(self, result: CommandResult, out: Path) -> None:
        from overhead_tui.summary.interpreters import InterpretersSummary
        from overhead_tui.summary.validation import SummaryError
        from overhead_tui.tui.screens.interpreters import InterpretersScreen

        self.others = None
        try:
            combined = InterpretersSummary.load(out)
        except (SummaryError, OSError, ValueError):
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            self.notify(f"The interpreters run did not finish: {last}", severity="error",
                        timeout=12)  # fmt: skip
            return
        self.interpreters = combined
        self.push_screen(InterpretersScreen(combined))

    def stop_interpreters(self) -> None:
        """Kill the running interpreters run's process group (its finished runs are kept)."""
        if self.others is not None:
            self.others.set()
