"""The app fed recorded events through ``runner_factory``: what the UI does mid-run, without
worker processes (``tests/app/replay.py``)."""

from __future__ import annotations

import time

from textual.widgets import DataTable, Static, TabbedContent

from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.scenario import ScenarioScreen
from tests.app.replay import Replay
from tests.conftest import RECORDED_SUMMARY

LIMIT_S = 60.0


async def _wait(pilot, condition, what):
    deadline = time.monotonic() + LIMIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {LIMIT_S:g} s")
        await pilot.pause(0.05)


def _settings(*names: str) -> Settings:
    return Settings(scenarios=list(names), probes=False)


def _state(app: OverheadApp, name: str) -> str:
    table = app.ladder_screen.query_one(DataTable)
    return str(table.get_cell(name, "state"))


async def test_an_open_scenario_screen_follows_its_run(tmp_path):
    """Drilled into a running rung, the screen says it runs, then shows its results."""
    replay = Replay(RunSummary.load(RECORDED_SUMMARY), hold="python_naive")
    app = OverheadApp(
        _settings("python_naive", "numpy_matmul"), runs_dir=tmp_path, runner_factory=replay
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
        await _wait(pilot, lambda: app.ladder.rows["python_naive"].active, "the row running")
        app.open_scenario("python_naive")
        await _wait(pilot, lambda: app.screen.query("#status"), "the drill-in")
        assert isinstance(app.screen, ScenarioScreen)
        status = app.screen.query_one("#status", Static)
        assert "results appear when it finishes" in str(status.render())
        assert not app.screen.query("TimingsTab")  # no results yet: no Timings tab
        replay.release()
        await _wait(pilot, lambda: app.screen.query("TimingsTab"), "the results on the screen")
        assert "status: ok" in str(app.screen.query_one("#status", Static).render())
        assert app.screen.query_one(TabbedContent).active == "tab-timingstab"
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)
        await _wait(pilot, lambda: not app.ladder.running, "the run finishing")
        assert _state(app, "python_naive") == "ok"
        assert _state(app, "numpy_matmul") == "ok"
    assert replay.runs[0][1].scenarios == ["python_naive", "numpy_matmul"]
