"""The app driven with Textual's Pilot through real runs of tiny scenarios."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input, Select, TabbedContent

from overhead_tui.summary.profile import ProfileRecord
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.modals import ExportScreen, HelpScreen, SettingsScreen
from overhead_tui.tui.screens.scenario import ScenarioScreen
from overhead_tui.tui.widgets.too_small import MIN_HEIGHT, MIN_WIDTH
from tests.app.replay import Replay
from tests.conftest import (
    FAULTY,
    FIXTURES,
    RECORDED_SUMMARY,
    RECORDED_SUMMARY_V3,
    SUMMARY_V1,
    fixture_summary,
    process_alive,
    rendered_text,
    wait_gone,
)

FAST_DIR = FIXTURES / "fast"


def _settings(*names, folder=FAST_DIR, **kw):
    options = {
        "size": 8,
        "repeats": 2,
        "min_sample_s": 0.001,
        "timeout_s": 30,
        "probes": False,
        **kw,
    }
    return Settings(scenarios=list(names), scenarios_dirs=[str(folder)], **options)


async def _wait(pilot, condition, what="the condition", timeout=120.0):
    """Let the app run until ``condition()`` holds (a run's state, a screen, a file).

    Only a fault reaches the generous limit; the message names what did not happen.
    """
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        await pilot.pause(0.05)


def _finished(app):
    return app.ladder.summary.finished and not app.ladder.running


def _states(app):
    table = app.ladder_screen.query_one(DataTable)
    return {str(row.value): str(table.get_cell(row, "state")) for row in table.rows}


async def test_rows_fill_then_drill_in_and_export(tmp_path):
    app = OverheadApp(_settings("fast_python", "fast_dense"), runs_dir=tmp_path / "runs")
    async with app.run_test(size=(120, 40)) as pilot:
        assert set(_states(app)) == {"fast_python", "fast_dense"}
        await _wait(pilot, lambda: _finished(app), "the run finishing")
        await _wait(
            pilot,
            lambda: all(s in ("ok", "ok !") for s in _states(app).values()),
            f"both rows showing ok (they show {_states(app)})",
        )
        table = app.ladder_screen.query_one(DataTable)
        assert str(table.get_cell("fast_dense", "vs_dense")) == "1.0×"
        # drill into the second row
        await pilot.press("down", "enter")
        assert isinstance(app.screen, ScenarioScreen)
        assert app.screen.scenario_name == "fast_dense"
        tabs = app.screen.query_one(TabbedContent)
        assert {p.id for p in tabs.query("TabPane")} == {"tab-timingstab", "tab-sourcetab"}
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)
        # export into a directory the user types
        await pilot.press("e")
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one(Input).value = str(tmp_path / "export")
        await pilot.press("enter")
        exported = [tmp_path / "export" / f for f in ("ladder.csv", "report.md", "summary.json")]
        await _wait(pilot, lambda: all(p.exists() for p in exported), "the exported files")
        await _wait(pilot, lambda: isinstance(app.screen, LadderScreen), "the export closing")
    files = sorted(p.name for p in (tmp_path / "export").iterdir())
    assert files == ["ladder.csv", "report.md", "summary.json"]
    summary = RunSummary.load(tmp_path / "export" / "summary.json")
    assert [s.status for s in summary.scenarios] == ["ok", "ok"]
    run_dirs = list((tmp_path / "runs").iterdir())
    assert len(run_dirs) == 1 and (run_dirs[0] / "summary.json").exists()


async def test_quit_during_a_run_kills_the_worker_and_keeps_results(tmp_path):
    # a timeout far beyond the wait below: only quitting can end the hanging worker in time
    settings = _settings("raises", "hangs", folder=FAULTY, timeout_s=3600)
    app = OverheadApp(settings, runs_dir=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(
            pilot, lambda: _worker_pid(tmp_path, "hangs") is not None, "the hangs worker starting"
        )
        pid = _worker_pid(tmp_path, "hangs")
        assert process_alive(pid)
        await pilot.press("q")
    assert wait_gone(pid), "worker survived quitting the app"
    summary = RunSummary.load(next(tmp_path.iterdir()))
    assert summary.scenario("raises").status == "error"  # finished result kept on disk
    assert "exploded" in summary.scenario("raises").error


def _worker_pid(runs, name):
    for log in runs.glob("*/log.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("name") == name and event.get("kind") == "environment":
                return next(
                    json.loads(x)["pid"]
                    for x in log.read_text().splitlines()
                    if json.loads(x).get("name") == name and "pid" in json.loads(x)
                )
    return None


async def test_invalid_rung_shows_status_not_speed(tmp_path):
    app = OverheadApp(_settings("wrong", folder=FAULTY), runs_dir=tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await _wait(pilot, lambda: _finished(app), "the run finishing")
        await _wait(pilot, lambda: _states(app)["wrong"] == "invalid", "the row showing invalid")
        table = app.ladder_screen.query_one(DataTable)
        assert str(table.get_cell("wrong", "median")) == "—"
        assert str(table.get_cell("wrong", "gflops")) == "—"
        await pilot.press("enter")
        assert "element (1, 2) is off" in str(app.screen.query_one("#status").render())
        assert not app.screen.query("TimingsTab")


async def test_open_saved_run_resize_through_many_sizes():
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(80, 24)) as pilot:
        assert all(s in ("ok", "ok !", "skipped") for s in _states(app).values())
        for width, height in [
            (20, 5),
            (75, 30),
            (76, 14),
            (76, 15),
            (80, 24),
            (99, 30),
            (100, 30),
            (149, 40),
            (150, 40),
            (200, 60),
            (40, 10),
            (80, 24),
        ]:
            await pilot.resize_terminal(width, height)
            await pilot.pause()
            small = width < MIN_WIDTH or height < MIN_HEIGHT
            assert app.screen.query_one("#too-small").display == small
        await pilot.press("enter")
        await pilot.resize_terminal(30, 8)
        await pilot.pause()
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert isinstance(app.screen, ScenarioScreen)


async def test_help_settings_and_palette_commands(tmp_path):
    app = OverheadApp(
        _settings("fast_python"),
        autorun=False,
        runs_dir=tmp_path,
        settings_problem=lambda s: "too big" if (s.size or 0) > 64 else None,
    )
    async with app.run_test(size=(100, 30)) as pilot:
        assert _states(app) == {"fast_python": "queued"}
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.press("o")
        assert isinstance(app.screen, SettingsScreen)
        app.screen.query_one("#size", Input).value = "100000"
        await pilot.click("#apply")
        assert isinstance(app.screen, SettingsScreen)  # refused with a message
        assert "too big" in str(app.screen.query_one("#error").render())
        app.screen.query_one("#size", Input).value = "4"
        # a Button ignores clicks during its press effect (the "-active" class, 0.2 s)
        apply = app.screen.query_one("#apply")
        await _wait(pilot, lambda: not apply.has_class("-active"), "the press effect ending")
        await pilot.click("#apply")
        await _wait(pilot, lambda: not isinstance(app.screen, SettingsScreen), "settings applied")
        await _wait(pilot, lambda: _finished(app), "the run with the new settings finishing")
        assert app.settings.size == 4
        assert not app.settings.probes  # --no-probes survives the settings screen
        assert app.ladder.summary.scenario("fast_python").n == 4
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Run the ladder", "Export", "Settings", "Help", "Open scenario fast_python"} <= set(
            titles
        )


async def test_the_settings_choose_a_named_set_and_the_run_takes_its_rungs(tmp_path):
    replay = Replay(fixture_summary(RECORDED_SUMMARY))
    app = OverheadApp(Settings(), autorun=False, runs_dir=tmp_path, runner_factory=replay)
    async with app.run_test(size=(120, 40)) as pilot:
        planned = set(_states(app))  # the default set: the span, before anything runs
        assert {"python_naive", "numpy_matmul"} <= planned and "python_hoisted" not in planned
        await pilot.press("o")
        assert app.screen.query_one("#set", Select).value == "default"
        app.screen.query_one("#set", Select).value = "python"
        await pilot.click("#apply")
        await _wait(pilot, lambda: not isinstance(app.screen, SettingsScreen), "settings applied")
        await _wait(pilot, lambda: len(replay.runs) == 1, "the run starting")
        run, settings = replay.runs[0]
        assert settings.sets == ["python"] and settings.scenarios == []
        names = set(run.specs)
        assert {"python_naive", "python_hoisted", "numpy_scalar_loop", "numpy_matmul"} <= names
        assert "c_naive_O2" not in names
        await _wait(pilot, lambda: _finished(app), "the replayed run finishing")
        await pilot.press("o")  # the set chosen is shown again, not the default
        assert app.screen.query_one("#set", Select).value == "python"


async def test_several_sets_given_on_the_command_line_survive_the_settings_dialog(tmp_path):
    replay = Replay(fixture_summary(RECORDED_SUMMARY))
    settings = Settings(sets=["python", "c"])
    app = OverheadApp(settings, autorun=False, runs_dir=tmp_path, runner_factory=replay)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("o")
        assert app.screen.query_one("#set", Select).value == "python"  # the first one shown
        await pilot.click("#apply")  # the set choice untouched: both sets kept
        await _wait(pilot, lambda: len(replay.runs) == 1, "the run starting")
        assert replay.runs[0][1].sets == ["python", "c"]
        assert {"python_hoisted", "c_tiled"} <= set(replay.runs[0][0].specs)


@pytest.mark.parametrize("key", ["r"])
async def test_rerun_makes_a_new_run_directory(tmp_path, key):
    # about the UI: the recorded events are replayed (no worker processes)
    replay = Replay(fixture_summary(RECORDED_SUMMARY))
    app = OverheadApp(_settings("numpy_matmul"), runs_dir=tmp_path, runner_factory=replay)
    async with app.run_test() as pilot:
        await _wait(pilot, lambda: _finished(app), "the first run finishing")
        first = app.runner
        await pilot.press(key)
        await _wait(pilot, lambda: app.runner is not first, "a second run starting")
        await _wait(pilot, lambda: _finished(app), "the second run finishing")
    assert len(list(tmp_path.iterdir())) == 2
    assert len(replay.runs) == 2


async def test_breakdown_bytecode_and_waterfall_views():
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")
        tabs = {p.id for p in app.screen.query("TabPane")}
        assert tabs == {"tab-timingstab", "tab-breakdowntab", "tab-bytecodetab", "tab-sourcetab"}
        await pilot.press("escape")
        table = app.ladder_screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("numpy_matmul"))
        await pilot.press("enter")  # the dense kernel: no bytecode worth showing
        assert app.screen.scenario_name == "numpy_matmul"
        assert "tab-bytecodetab" not in {p.id for p in app.screen.query("TabPane")}
        await pilot.press("escape", "w")
        assert type(app.screen).__name__ == "WaterfallScreen"
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)


async def test_profile_key_stores_results_and_shows_the_tabs(monkeypatch, tmp_path):
    """The producer is mocked (real profilers are tested in tests/e2e/test_profilers.py)."""
    from overhead_tui.tui import app as app_module

    profile = json.loads(RECORDED_SUMMARY.read_text())["scenarios"][1]["profile"]
    calls = []

    def fake_profile(spec, n, dtype, **kw):
        calls.append((spec.name, n))
        return ProfileRecord.from_json(json.loads(json.dumps(profile)))

    monkeypatch.setattr(app_module, "profile_scenario", fake_profile)
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.scenario("python_naive").profile = None
    summary.run_dir = str(tmp_path)
    app = OverheadApp(summary=summary)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")
        assert "tab-nativetab" not in {p.id for p in app.screen.query("TabPane")}
        await pilot.press("p")
        await app.workers.wait_for_complete()
        wanted = {"tab-nativetab", "tab-stackstab", "tab-linestab"}
        await _wait(
            pilot,
            lambda: wanted <= {p.id for p in app.screen.query("TabPane")},
            "the profile tabs appearing",
        )
        assert calls == [("python_naive", 128)]
        saved = RunSummary.load(tmp_path / "summary.json")
        assert saved.scenario("python_naive").profile.backends["perf"].status == "ok"
        await pilot.press("escape", "c")
        assert type(app.screen).__name__ == "CapabilitiesScreen"  # at once, before the checks
        await _wait(
            pilot, lambda: app.screen.capabilities is not None, "the backends' checks landing"
        )
        assert set(app.screen.capabilities) == {"perf", "pyspy", "callgrind", "scalene"}


async def test_the_lines_tab_shows_scalene_lines_and_wraps_its_notes():
    """Scalene's per-line view on a Python rung, and the py-spy/Scalene note in full: it was a
    Label clipped at the screen's edge (140 columns cut it mid-word)."""
    from textual.widgets import Static, TabbedContent

    summary = fixture_summary(RECORDED_SUMMARY)
    profile = summary.scenario("python_hoisted").profile
    assert profile is not None and profile.backends["scalene"].ok
    note = "py-spy and Scalene disagree on the lines: " + "each reads the stack its own way, " * 6
    summary.scenario("python_hoisted").profile = replace(profile, lines_note=note.strip())
    app = OverheadApp(summary=summary)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("down", "enter")
        app.screen.query_one(TabbedContent).active = "tab-linestab"
        pane = app.screen.query_one("#tab-linestab")
        await _wait(pilot, lambda: bool(pane.query(".warning")), "the Lines tab", timeout=20)
        warning = pane.query_one(".warning", Static)
        assert note.strip() in str(warning.render())
        await _wait(pilot, lambda: warning.size.height >= 2, "the note wrapping", timeout=20)
        shown = " ".join(str(w.render()) for w in pane.query(Static))
        assert "Scalene --cpu-only" in shown and ": ok" in shown


async def test_version_1_summary_opens_without_breakdowns():
    app = OverheadApp(summary=fixture_summary(SUMMARY_V1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        tabs = {p.id for p in app.screen.query("TabPane")}
        assert tabs == {"tab-timingstab", "tab-sourcetab"}
        await pilot.press("escape", "w")
        assert app.screen.query("#chart")  # the waterfall works from timings alone


async def test_roofline_and_machines_screens(monkeypatch, tmp_path):
    from textual.widgets import Static

    from overhead_tui.tui.widgets.loglog_plot import LogLogPlot

    user_file = tmp_path / "mine.toml"
    user_file.write_text(
        '[[machines]]\nname = "My laptop"\nkind = "cpu"\nfp64_gflops = 200\n'
        'bandwidth_gbs = 50\nsource = "measured by me"\n'
    )
    monkeypatch.setenv("OVERHEAD_TUI_REFERENCE", str(user_file))
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY_V3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("l")
        assert type(app.screen).__name__ == "RooflineScreen"
        plot = app.screen.query_one(LogLogPlot)
        assert plot.size.height >= 10
        assert {p.rung for p in app.screen.model.points} >= {1, 21}
        await pilot.press("escape", "m")
        assert type(app.screen).__name__ == "MachinesScreen"
        assert "My laptop" in rendered_text(app.screen.query_one("#reference", Static).content)
        tiles = app.screen.query_one("#tiles", Static)
        assert "T = 64" in rendered_text(tiles.content)
        tile_input = app.screen.query_one("#tile", Input)
        # the field does not take the keys on arrival (the key bar showed esc alone): tab
        assert app.focused is not tile_input
        await pilot.press("tab")
        await _wait(pilot, lambda: app.focused is tile_input, "tab reaching the tile field")
        tile_input.value = "512"
        await _wait(
            pilot, lambda: "T = 512" in rendered_text(tiles.content), "the tile table for 512"
        )
        tile_input.value = "0"
        await _wait(
            pilot, lambda: "whole number" in rendered_text(tiles.content), "the tile size refused"
        )
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)


async def test_roofline_of_a_summary_without_limits_says_so():
    app = OverheadApp(summary=fixture_summary(SUMMARY_V1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("l")
        assert app.screen.model.ceilings == [] and app.screen.model.points  # intensity from n
        assert app.screen.model.points[0].attainable is None
        await pilot.press("escape", "m")
        assert "No measured limits" in rendered_text(app.screen.query_one("#this-machine").content)


async def test_pressing_a_screen_key_twice_does_not_stack_a_copy():
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY_V3))
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("l", "m", "w", "y"):
            await pilot.press(key, key)
            assert len(app.screen_stack) == 3  # the default screen, the ladder, this one
            await pilot.press("escape")
            assert isinstance(app.screen, LadderScreen)


async def test_a_size_sweep_starts_from_the_app_and_opens_its_screen(tmp_path):
    app = OverheadApp(_settings("fast_python"), runs_dir=tmp_path, autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("S")
        assert type(app.screen).__name__ == "SweepSettingsScreen"
        sizes = app.screen.query_one("#sizes")
        sizes.value = "8,abc"
        sizes.focus()
        await pilot.press("enter")
        assert "whole numbers" in str(app.screen.query_one("#error").render())
        sizes.value = "8,16"
        app.screen.query_one("#budget").value = "20"
        await pilot.press("enter")  # submits from the field
        # while it runs: the ladder's status line says so (not the last run's end), no toasts
        shown: list[str] = []

        def status() -> str:
            if isinstance(app.screen, LadderScreen):
                shown.append(str(app.screen.query_one("#current").render()))
            return type(app.screen).__name__

        await _wait(pilot, lambda: status() == "SweepScreen", "the sweep's end")
        assert any(text.startswith("size sweep: ") for text in shown), shown
        assert not app._notifications, [n.message for n in app._notifications]
        record = app.screen.summary.sweep
        assert record.sizes == [8, 16]
        assert {(p.scenario, p.n, p.status) for p in record.points} == {
            ("fast_python", 8, "ok"),
            ("fast_python", 16, "ok"),
        }
        assert app.sweep is None
        # nothing lost: the sweep's folder holds every point, read back as a record
        saved = RunSummary.load(tmp_path / next(tmp_path.iterdir()).name / "summary.json")
        assert saved.sweep is not None and saved.sweep.sizes == [8, 16]
        assert {(p.scenario, p.n, p.status) for p in saved.sweep.points} == {
            (p.scenario, p.n, p.status) for p in record.points
        }
        await pilot.press("escape")  # back to the ladder before the app closes
        await _wait(pilot, lambda: type(app.screen).__name__ == "LadderScreen", "going back")
        assert not str(app.screen.query_one("#current").render()).startswith("size sweep")


async def test_export_never_overwrites_files_in_a_folder_of_the_user_s(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "report.md").write_text("MY NOTES")
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("e")
        app.screen.query_one(Input).value = str(folder)
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, LadderScreen), "the dialog closing")
    assert (folder / "report.md").read_text() == "MY NOTES"
    assert not (folder / "summary.json").exists()


async def _set_dtype(pilot, app, dtype):
    """Change the dtype in the settings dialog and apply it (a new run starts)."""
    from textual.widgets import Select

    await pilot.press("o")
    assert isinstance(app.screen, SettingsScreen)
    app.screen.query_one("#dtype", Select).value = dtype
    await pilot.click("#apply")
    await _wait(pilot, lambda: not isinstance(app.screen, SettingsScreen), "settings applied")


@pytest.mark.parametrize("path", ["live run", "after a dtype change"])
async def test_a_profile_made_after_a_run_in_the_app_is_saved_and_exported(
    monkeypatch, tmp_path, path
):
    """A profile made after a run the app itself ran lands in the run's summary.json and in
    every export (the events carry copies of the summary, so the row's record is not the
    summary's object); the profile after ``open`` is tested above."""
    from overhead_tui.tui import app as app_module

    recorded = json.loads(RECORDED_SUMMARY.read_text())["scenarios"][1]["profile"]
    monkeypatch.setattr(
        app_module,
        "profile_scenario",
        lambda spec, n, dtype, **kw: ProfileRecord.from_json(json.loads(json.dumps(recorded))),
    )
    summary = fixture_summary(RECORDED_SUMMARY)
    for result in summary.scenarios:
        result.profile = None
    replay = Replay(summary)
    app = OverheadApp(
        _settings("python_naive", "numpy_matmul"), runs_dir=tmp_path / "runs", runner_factory=replay
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: _finished(app), "the run finishing")
        if path == "after a dtype change":
            first = app.runner
            await _set_dtype(pilot, app, "float32")
            await _wait(pilot, lambda: app.runner is not first and _finished(app), "the rerun")
        app.ladder_screen.query_one(DataTable).move_cursor(row=0)
        await pilot.press("p")
        await app.workers.wait_for_complete()
        await _wait(
            pilot,
            lambda: app.ladder.summary.scenario("python_naive").profile is not None,
            "the profile landing in the run's summary",
        )
        await pilot.press("e")
        app.screen.query_one(Input).value = str(tmp_path / "export")
        await pilot.press("enter")
        await _wait(pilot, lambda: (tmp_path / "export" / "report.md").exists(), "the export")
        await _wait(pilot, lambda: isinstance(app.screen, LadderScreen), "the export closing")
    run_dir = Path(app.ladder.summary.run_dir)
    for saved in (run_dir / "summary.json", tmp_path / "export" / "summary.json"):
        profile = RunSummary.load(saved).scenario("python_naive").profile
        assert profile is not None and profile.backends["perf"].status == "ok", saved
    assert "## Profilers" in (tmp_path / "export" / "report.md").read_text()
