"""The live app: × dense from the first finished row, quiet while samples are timed."""

from __future__ import annotations

import time

from textual.widgets import DataTable

from overhead_tui.engine.events import ScenarioProgress
from overhead_tui.summary.records import Settings
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from tests.conftest import FIXTURES


def _settings(*names):
    return Settings(
        scenarios=list(names),
        scenarios_dirs=[str(FIXTURES / "fast")],
        size=8,
        repeats=2,
        min_sample_s=0.001,
        timeout_s=60,
        probes=False,
    )


async def _wait(pilot, condition, timeout=120.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.05)


async def test_first_finished_python_row_shows_its_vs_dense(tmp_path, monkeypatch):
    """The dense kernel runs first, so the Python row has its ratio the moment it lands."""
    seen: dict[str, str] = {}
    original = LadderScreen.update_scenario

    def record(self, name):
        original(self, name)
        row = self.ladder.rows.get("fast_python")
        if row is not None and row.state == "ok" and "fast_python" not in seen:
            table = self.query_one(DataTable)
            seen["fast_python"] = str(table.get_cell("fast_python", "vs_dense"))
            seen["running"] = str(self.ladder.running)

    monkeypatch.setattr(LadderScreen, "update_scenario", record)
    app = OverheadApp(_settings("fast_python", "fast_dense"), runs_dir=tmp_path / "runs")
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: app.ladder.summary.finished and not app.ladder.running)
        table = app.ladder_screen.query_one(DataTable)
        # display order stays the rung order
        assert [str(r.value) for r in table.rows] == ["fast_python", "fast_dense"]
    assert seen["running"] == "True"  # caught while the run was still going
    assert seen["fast_python"].endswith("×") and seen["fast_python"] != "—"
    events = (next((tmp_path / "runs").iterdir()) / "log.jsonl").read_text()
    results = [line for line in events.splitlines() if '"kind": "result"' in line]
    assert '"fast_dense"' in results[0] and '"fast_python"' in results[1]


async def test_spinner_and_clock_stop_while_samples_are_timed_and_without_a_run(
    tmp_path, monkeypatch
):
    ticks = []
    tick = LadderScreen._tick
    monkeypatch.setattr(LadderScreen, "_tick", lambda screen: (ticks.append(1), tick(screen)))
    app = OverheadApp(_settings("fast_python"), runs_dir=tmp_path / "runs", autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.ladder_screen
        table = screen.query_one(DataTable)
        await pilot.pause(0.3)  # three ticks' worth: nothing runs, so nothing wakes up
        assert table.frame == 0 and not ticks
        app.ladder.running = True  # as if a run were going: the spinner ticks
        app.mutate_reactive(OverheadApp.ladder)
        await _wait(pilot, lambda: table.frame >= 2)
        app.post_message(
            OverheadApp.EngineEvent(ScenarioProgress("fast_python", "running", 1, 2, True))
        )
        await _wait(pilot, lambda: app.ladder.quiet)
        await pilot.pause(0.05)
        frozen = table.frame
        await pilot.pause(0.5)  # five ticks' worth: none may happen inside the window
        assert table.frame == frozen
        app.post_message(OverheadApp.EngineEvent(ScenarioProgress("fast_python", "validating")))
        await _wait(pilot, lambda: table.frame > frozen)  # ticks again once the window closed
        app.ladder.running = False


async def test_cold_start_shows_probe_progress_and_the_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = _settings("fast_python")
    settings.probes = True
    app = OverheadApp(settings, runs_dir=tmp_path / "runs")
    async with app.run_test(size=(80, 24)) as pilot:
        current = app.ladder_screen.query_one("#current")
        await _wait(pilot, lambda: "probe 1/" in str(current.render()))
        notes = str(app.ladder_screen.query_one("#notes").render())
        assert "unit costs once" in notes
        machine = str(app.ladder_screen.query_one("#machine").render())
        assert "numpy None" not in machine and "BLAS unknown" not in machine
        app.stop_run()
