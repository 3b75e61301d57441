"""The app fed recorded events through ``runner_factory``: what the UI does mid-run, without
worker processes (``tests/app/replay.py``)."""

from __future__ import annotations

import copy
import time

from textual.widgets import DataTable, Input, Static, TabbedContent

from overhead_tui.engine.events import ScenarioFinished, ScenarioStarted
from overhead_tui.summary.records import Settings
from overhead_tui.summary.units import fmt_seconds
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.scenario import ScenarioScreen
from overhead_tui.tui.widgets.ladder_table import LadderTable
from tests.app.replay import Replay
from tests.conftest import RECORDED_SUMMARY, fixture_summary

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


def _held_naive(tmp_path, recorded) -> tuple[Replay, OverheadApp]:
    """An app whose run of python_naive and numpy_matmul replays ``recorded``, holding
    python_naive running until the test releases it."""
    replay = Replay(recorded, hold="python_naive")
    settings = _settings("python_naive", "numpy_matmul")
    return replay, OverheadApp(settings, runs_dir=tmp_path, runner_factory=replay)


async def _open_held_naive(pilot, app: OverheadApp, replay: Replay) -> None:
    """Wait until python_naive is held running, then drill into it."""
    await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
    await _wait(pilot, lambda: app.ladder.rows["python_naive"].active, "the row running")
    app.open_scenario("python_naive")
    await _wait(pilot, lambda: app.screen.query("#status"), "the drill-in")


async def test_an_open_scenario_screen_follows_its_run(tmp_path):
    """Drilled into a running rung, the screen says it runs, then shows its results."""
    replay, app = _held_naive(tmp_path, fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_held_naive(pilot, app, replay)
        assert isinstance(app.screen, ScenarioScreen)
        status = app.screen.query_one("#status", Static)
        assert "results appear when it finishes" in str(status.render())
        assert not app.screen.query("TimingsTab")  # no results yet: no Timings tab
        replay.release()
        await _wait(pilot, lambda: app.screen.query("TimingsTab"), "the results on the screen")
        assert "status: ok" in str(app.screen.query_one("#status", Static).render())
        await _wait(  # the tabs are mounted first and activated on a later refresh
            pilot,
            lambda: app.screen.query_one(TabbedContent).active == "tab-timingstab",
            "the Timings tab active",
        )
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)
        await _wait(pilot, lambda: not app.ladder.running, "the run finishing")
        assert _state(app, "python_naive") == "ok"
        assert _state(app, "numpy_matmul") == "ok"
    assert replay.runs[0][1].scenarios == ["python_naive", "numpy_matmul"]


async def test_a_scenario_screen_catches_up_on_a_change_it_was_not_told_of(tmp_path):
    """The screen compares its row with what it shows, not with the scenario the last change
    named: its result landing unannounced (as one applied before the screen watched) shows on
    the next change, though that one names another scenario."""
    recorded = fixture_summary(RECORDED_SUMMARY)
    replay, app = _held_naive(tmp_path, recorded)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_held_naive(pilot, app, replay)
        assert not app.screen.query("TimingsTab")
        finished = copy.deepcopy(recorded.scenario("python_naive"))
        assert finished is not None
        app.ladder.apply(ScenarioFinished(finished, 0, 2))  # not announced to the screens
        app.ladder.apply(ScenarioStarted("numpy_matmul", 1, 2))
        app.mutate_reactive(OverheadApp.ladder)  # announced: a change naming numpy_matmul
        await _wait(pilot, lambda: app.screen.query("TimingsTab"), "the results on the screen")
        assert "status: ok" in str(app.screen.query_one("#status", Static).render())
        replay.release()
        await _wait(pilot, lambda: not app.ladder.running, "the run finishing")
        assert isinstance(app.screen, ScenarioScreen)
        # the finish recomposes the screen: its status is back once the new widgets mount
        shown = lambda: "status: ok" in (_shown_status(app) or "")  # noqa: E731
        await _wait(pilot, shown, "the status after the finish")


def _shown_status(app: OverheadApp) -> str | None:
    """The scenario screen's status line as rendered, None while it is being recomposed."""
    found = app.screen.query("#status")
    return str(found.first(Static).render()) if found else None


def _cell(app: OverheadApp, name: str, column: str) -> str:
    return str(app.ladder_screen.query_one(DataTable).get_cell(name, column))


async def test_a_replayed_ladder_fills_its_rows_and_ends_with_each_final_status(tmp_path):
    """Every recorded rung lands in its row: median and status as recorded, a crashed one
    with its status and no speed; rows stay in rung order; the run ends 'done'."""
    recorded = fixture_summary(RECORDED_SUMMARY)
    crashed = recorded.scenario("c_naive_O0")
    assert crashed is not None
    crashed.status, crashed.error = "crashed", "worker exited with signal 11"
    names = [r.name for r in recorded.scenarios]
    replay = Replay(recorded, hold=names[-1])
    app = OverheadApp(_settings(*names), runs_dir=tmp_path, runner_factory=replay)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
        await _wait(pilot, lambda: app.ladder.rows[names[-2]].state != "queued", "the rows")
        for result in recorded.scenarios[:-1]:  # mid-run: every rung before the last is in
            expected = fmt_seconds(result.median_s) if result.has_speed else "—"
            assert _cell(app, result.name, "median") == expected, result.name
        assert _cell(app, "c_naive_O0", "state") == "crashed"
        assert _cell(app, names[-1], "median") == "—"  # still being timed
        replay.release()
        await _wait(pilot, lambda: not app.ladder.running, "the run finishing")
        table = app.ladder_screen.query_one(DataTable)
        rung_order = [r.name for r in sorted(recorded.scenarios, key=lambda r: r.rung)]
        assert [str(r.value) for r in table.rows] == rung_order
        for result in recorded.scenarios:
            label = "ok !" if result.status == "ok" and result.warnings else result.status
            assert _cell(app, result.name, "state") == label, result.name
        notes = str(app.ladder_screen.query_one("#notes").render())
        assert "1 failed — c_naive_O0: crashed" in notes
        ended = str(app.ladder_screen.query_one("#current").render())
        ok = sum(r.status == "ok" for r in recorded.scenarios)
        assert ended.startswith(f"done: {ok} ok, 1 failed"), ended
        assert str(app.ladder.summary.run_dir) in ended  # where the run is kept
        # the status line says it: no toast over the layer legend on the ladder
        assert not any("Run " in n.message for n in app._notifications)


async def test_inside_a_replayed_timed_window_the_clock_stops_and_only_its_row_is_drawn(
    tmp_path, monkeypatch
):
    """Held inside python_naive's timed window: no spinner frame, no clock tick, and no cell
    of another row is redrawn (the observer must not disturb the rung being timed)."""
    drawn: list[tuple[str, bool]] = []
    original = DataTable.update_cell

    def spy(self, row_key, column_key, value, **kw):
        drawn.append((str(row_key), app.ladder.quiet))
        return original(self, row_key, column_key, value, **kw)

    monkeypatch.setattr(DataTable, "update_cell", spy)
    replay = Replay(fixture_summary(RECORDED_SUMMARY), hold="python_naive")
    app = OverheadApp(
        _settings("python_naive", "numpy_matmul"), runs_dir=tmp_path, runner_factory=replay
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
        await _wait(pilot, lambda: app.ladder.quiet, "the timed window")
        await pilot.pause(0.05)
        screen = app.ladder_screen
        table = screen.query_one(LadderTable)
        frame, elapsed = table.frame, str(screen.query_one("#elapsed").render())
        state = _cell(app, "python_naive", "state")
        await pilot.pause(0.25)  # two ticks' worth
        assert table.frame == frame
        assert str(screen.query_one("#elapsed").render()) == elapsed
        assert _cell(app, "python_naive", "state") == state  # the spinner stands still
        replay.release()
        await _wait(pilot, lambda: not app.ladder.running, "the run finishing")
    inside = {row for row, quiet in drawn if quiet}
    assert inside <= {"python_naive"}
    assert any(row == "numpy_matmul" for row, _ in drawn)  # the spy sees the other rows


async def test_an_open_scenario_screen_shows_its_final_status_when_the_run_is_stopped(tmp_path):
    """A queued rung's screen, open while the run is stopped, ends with the row's status
    (the run's end names no scenario, but changes every queued row)."""
    replay = Replay(fixture_summary(RECORDED_SUMMARY), hold="python_naive")
    app = OverheadApp(
        _settings("python_naive", "numpy_matmul"), runs_dir=tmp_path, runner_factory=replay
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
        app.open_scenario("numpy_matmul")
        await _wait(pilot, lambda: app.screen.query("#status"), "the drill-in")
        status = app.screen.query_one("#status", Static)
        assert str(status.render()) == "status: queued"
        app.stop_run()
        await _wait(pilot, lambda: not app.ladder.running, "the run stopping")
        assert app.ladder.rows["numpy_matmul"].state == "skipped"
        await _wait(pilot, lambda: "skipped" in str(status.render()), "the final status")


async def test_ctrl_c_mid_run_stops_it_and_exits_130_saying_where_it_is_kept(tmp_path):
    """Ctrl-C, even with a text field focused, stops the run and exits 130; the farewell the
    command prints says where the finished rungs are."""
    replay = Replay(fixture_summary(RECORDED_SUMMARY), hold="python_naive")
    app = OverheadApp(
        _settings("python_naive", "numpy_matmul"), runs_dir=tmp_path, runner_factory=replay
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and replay.runs[0][0].held.is_set(), "hold")
        await pilot.press("o")  # the settings dialog: a text field has the focus
        await _wait(pilot, lambda: isinstance(app.focused, Input), "a text field focused")
        await pilot.press("ctrl+c")
    run = replay.runs[0][0]
    assert run._cancel.is_set()
    assert app.return_code == 130
    assert app.farewell == (
        f"overhead-tui: interrupted; the finished rungs are kept in {run.run_dir} "
        f"(open it with `overhead-tui open {run.run_dir}`)"
    )


async def test_q_with_nothing_running_exits_0_saying_nothing(tmp_path):
    replay = Replay(fixture_summary(RECORDED_SUMMARY))
    app = OverheadApp(_settings("numpy_matmul"), runs_dir=tmp_path, runner_factory=replay)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: bool(replay.runs) and not app.ladder.running, "the run")
        await pilot.press("q")
    assert app.return_code == 0
    assert app.farewell is None
