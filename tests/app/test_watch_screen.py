"""The app's Watch screen (``W``, ``overhead-tui watch FILE.py --app``), with real workers and
real saves: each save measured and said, a broken one (syntax error, wrong result, exception,
crash, timeout) one line with the last good result kept, the dialog's bad input, and leaving
the screen or quitting killing a hanging worker."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Input, Label

from overhead_tui.commands.new import scaffold
from overhead_tui.engine.watch import history_path, watch_key
from overhead_tui.summary.records import Settings
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.watch import WatchFileDialog, WatchScreen
from tests.app.test_app import _wait
from tests.conftest import process_alive, wait_gone
from tests.e2e.test_watch_cli import HOISTED, NAIVE, _save

KERNEL_LINE = "    return c\n"


def _settings(**kw) -> Settings:
    options = {"size": 8, "repeats": 5, "min_sample_s": 0.001, "timeout_s": 30, "probes": False}
    return Settings(**{**options, **kw})


def _app(path: Path, tmp_path: Path, **kw) -> OverheadApp:
    app = OverheadApp(_settings(**kw), autorun=False, watch=path)
    app.watch_runs = tmp_path / "runs"
    return app


def _saves(app: OverheadApp) -> list[str]:
    """The first line of each save shown (those start with the time)."""
    screen = next(s for s in app.screen_stack if isinstance(s, WatchScreen))
    return [line for line in screen.lines if line.startswith("[")]


async def test_saves_are_measured_and_broken_ones_are_one_line(tmp_path):
    path = scaffold("watched", "python_naive", tmp_path / "mine")
    app = _app(path, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: isinstance(app.screen, WatchScreen), "the Watch screen")
        await _wait(pilot, lambda: len(_saves(app)) == 1, "the first measurement")
        assert "GFLOP/s" in _saves(app)[0] and "watched" in _saves(app)[0]
        _save(path, path.read_text().replace(NAIVE, HOISTED))  # an editor's atomic rename
        await _wait(pilot, lambda: len(_saves(app)) == 2, "the hoisted save's measurement")
        second = _saves(app)[1]
        assert "GFLOP/s" in second
        assert " the last's " in second or "no detectable change" in second
        good = path.read_text()
        broken = {
            "syntax error": good.replace(KERNEL_LINE, "    return c(\n", 1),
            "invalid": good.replace(KERNEL_LINE, "    return [[1.0] * m for _ in range(n)]\n", 1),
            "error": good.replace(KERNEL_LINE, "    raise RuntimeError('my bug')\n", 1),
            "crashed": good.replace(KERNEL_LINE, "    import os; os.abort()\n", 1),
        }
        for count, (word, text) in enumerate(broken.items(), start=3):
            _save(path, text)
            await _wait(pilot, lambda c=count: len(_saves(app)) == c, f"the {word} save's line")
            line = _saves(app)[-1]
            assert word in line and "the last good result stays" in line, line
        _save(path, good)
        await _wait(pilot, lambda: len(_saves(app)) == 7, "the fixed save's measurement")
        assert "GFLOP/s" in _saves(app)[-1]
        status = app.screen.query_one("#status")
        await _wait(pilot, lambda: "watching for saves" in str(status.render()), "the wait")
        _save(path, good + "\n")  # two saves 0.1 s apart: measured once, as the last
        await pilot.pause(0.1)
        _save(path, good + "\n\n")
        await _wait(pilot, lambda: len(_saves(app)) == 8, "the double save's measurement")
        await _wait(pilot, lambda: "watching for saves" in str(status.render()), "the wait")
        await pilot.pause(1.5)  # a second measurement of the double save would start by now
        assert len(_saves(app)) == 8 and "measuring" not in str(status.render())
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen) and app.watching is None
    history = history_path(watch_key("watched", path.resolve()))
    assert history.is_relative_to(Path(os.environ["XDG_DATA_HOME"]))
    assert len(history.read_text().splitlines()) == 8


async def test_a_hanging_save_times_out_and_leaving_the_screen_kills_the_worker(tmp_path):
    path = scaffold("hanging", "python_naive", tmp_path / "mine")
    good = path.read_text()
    hangs = good.replace(KERNEL_LINE, "    while True:\n        pass\n", 1)
    _save(path, hangs)
    app = _app(path, tmp_path, timeout_s=3)
    async with app.run_test(size=(120, 40)) as pilot:
        await _wait(pilot, lambda: _saves(app) if app.watching else [], "the timeout's line")
        assert "timeout" in _saves(app)[0]
        _save(path, hangs + "\n")  # measured again: it hangs again; leave while it does
        await _wait(
            pilot,
            lambda: len(list((tmp_path / "runs").glob("*/*/log.jsonl"))) == 2,
            "the second measurement starting",
        )
        logs = sorted((tmp_path / "runs").glob("*/*/log.jsonl"))
        await _wait(pilot, lambda: _pid_in(logs[-1]) is not None, "the second worker")
        pid = _pid_in(logs[-1])
        assert pid is not None and process_alive(pid)
        await pilot.press("escape")
        assert app.watching is None
    assert wait_gone(pid), "the watched worker survived leaving the Watch screen"


def _pid_in(log: Path) -> int | None:
    import json

    for line in log.read_text().splitlines():
        pid = json.loads(line).get("pid")
        if pid:
            return int(pid)
    return None


async def test_the_dialog_refuses_a_missing_file_then_watches_a_good_one(tmp_path):
    path = scaffold("chosen", "python_naive", tmp_path / "mine")
    app = OverheadApp(_settings(), autorun=False)
    app.watch_runs = tmp_path / "runs"
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("W")
        assert isinstance(app.screen, WatchFileDialog)
        app.screen.query_one("#file", Input).value = str(tmp_path / "missing.py")
        await pilot.press("enter")
        error = str(app.screen.query_one("#error", Label).render())
        assert isinstance(app.screen, WatchFileDialog) and "does not exist" in error
        app.screen.query_one("#file", Input).value = str(path)
        await pilot.press("enter")
        await _wait(pilot, lambda: isinstance(app.screen, WatchScreen), "the Watch screen")
        await _wait(pilot, lambda: len(_saves(app)) == 1, "the first measurement")
        await pilot.press("r")  # a ladder run would compete with the watch for the CPU
        assert not app.ladder.running
        await pilot.press("e")  # nothing of the ladder to export: where the saves are kept
        assert isinstance(app.screen, WatchScreen)
        await pilot.press("q")
    assert app.farewell is not None and "watch history" in app.farewell
