"""Starting a size sweep from the app (``S``): the dialog for its sizes and budget, the
sweep run in a thread (each measured point announced between workers, never inside a timed
window), and the Sweep screen on its result.  The same ``sweeps.sizes.Sweep`` as
``overhead-tui sweep``; the scenarios, dtype and interpreter are the run settings'.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App
from textual.worker import get_current_worker

from overhead_tui.engine.plan import new_run_dir
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import ScenarioSpec, select
from overhead_tui.present.live import LiveLadder
from overhead_tui.summary.records import Settings
from overhead_tui.tui.screens.modals import SweepRequest, SweepSettingsScreen
from overhead_tui.tui.screens.sweep import SweepScreen


class SweepActions(App[None]):
    """The app's size-sweep actions (``OverheadApp`` is one: they use its run settings,
    scenarios and run folder; ``self.sweep`` is the running sweep or None)."""

    sweep: Any = None
    settings: Settings
    all_specs: list[ScenarioSpec]
    runs_dir: Path | None
    ladder: LiveLadder

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
        from overhead_tui.sweeps.sizes import SWEEP_MIN_SAMPLE_S, SWEEP_REPEATS, Sweep

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
        self.sweep = Sweep(specs, request.sizes, request.budget_s, settings, run_dir)
        self.notify(
            f"Sweeping {', '.join(names)} at n = {', '.join(map(str, request.sizes))} within "
            f"{request.budget_s:g} s; the Sweep screen opens when it ends (q stops it).",
            timeout=8,
        )
        self._drive_sweep(self.sweep)

    @work(thread=True, exclusive=True, group="run", exit_on_error=False)
    def _drive_sweep(self, sweep: Any) -> None:
        """Run the sweep; each measured point is announced between workers (never inside a
        timed window), the Sweep screen opens on the result."""
        from overhead_tui.sweeps.budgeted import PointMeasured

        worker = get_current_worker()
        for event in sweep.events():
            if worker.is_cancelled:
                sweep.cancel()
            if isinstance(event, PointMeasured):
                point = event.point
                speed = f"{point.gflops:.3g} GFLOP/s" if point.gflops else point.status
                text = f"sweep: {point.scenario} n={getattr(point, 'n', '?')}: {speed}"
                self.call_from_thread(self.notify, text, timeout=3)
        self.call_from_thread(self._swept, sweep)

    def _swept(self, sweep: Any) -> None:
        self.sweep = None
        if sweep.cancelled:
            self.notify(f"Sweep stopped; saved in {sweep.summary.run_dir}", timeout=8)
        self.push_screen(SweepScreen(sweep.summary))
