"""``engine.watch.WatchSession`` without workers: each save kept in order with the last good
version before it, the history keyed by the file's path, and only the newest run folders
kept (the session's own)."""

from __future__ import annotations

import json
from dataclasses import replace

from overhead_tui.commands.new import scaffold
from overhead_tui.engine.events import RunFinished
from overhead_tui.engine.watch import KEEP_RUNS, WatchSession, history_path, watch_key
from overhead_tui.summary.records import RunSummary, Settings
from tests.conftest import RECORDED_SUMMARY, fixture_summary

RECORDED = fixture_summary(RECORDED_SUMMARY)


class RecordedRun:
    """A run that ends at once with the recorded python_naive result under the spec's name."""

    made: list = []

    def __init__(self, specs, settings, run_dir):
        self.name, self.run_dir = specs[0].name, run_dir
        RecordedRun.made.append(run_dir)

    def events(self):
        result = replace(RECORDED.scenario("python_naive"), name=self.name)
        yield RunFinished(RunSummary(settings=Settings(), scenarios=[result]), cancelled=False)

    def cancel(self):
        pass


def test_saves_are_kept_in_order_with_the_last_good_one_before(tmp_path):
    path = scaffold("kept", "python_naive", tmp_path / "mine")
    session = WatchSession(path, Settings(), tmp_path / "runs", RecordedRun)
    first = session.measure()
    path.write_text("def broken(:\n")
    broken = session.measure()
    path.write_text(scaffold("again", "python_naive", tmp_path / "other").read_text())
    third = session.measure()
    assert first.last_good is None and first.version.ok
    assert broken.version.status == "not measured" and broken.last_good is first.version
    assert third.last_good is first.version  # the broken save is skipped
    lines = history_path(watch_key("kept", path)).read_text().splitlines()
    assert [json.loads(x)["status"] for x in lines] == ["ok", "not measured"]
    assert json.loads(lines[0])["file"] == str(path)


def test_two_files_of_one_name_keep_two_histories(tmp_path):
    one = scaffold("same", "python_naive", tmp_path / "a")
    two = scaffold("same", "python_naive", tmp_path / "b")
    assert watch_key("same", one) != watch_key("same", two)


def test_only_the_newest_run_folders_of_the_session_are_kept(tmp_path):
    path = scaffold("pruned", "python_naive", tmp_path / "mine")
    mine = tmp_path / "runs" / "someone_elses"
    mine.mkdir(parents=True)
    session = WatchSession(path, Settings(), tmp_path / "runs", RecordedRun)
    RecordedRun.made = []
    for _ in range(KEEP_RUNS + 3):
        session.measure()
    folders = set((tmp_path / "runs" / watch_key("pruned", path)).iterdir())
    assert folders == set(session.run_dirs) and len(folders) == KEEP_RUNS
    assert RecordedRun.made[-1] in folders
    assert mine.exists()
