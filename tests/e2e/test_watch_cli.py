"""``overhead-tui watch``, the real binary on a scaffolded file: each save measured once
(atomic renames, debounced double saves), a broken save one line with the last result kept,
the history exported, Ctrl-C 130 with nothing left running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from overhead_tui.commands.new import scaffold
from overhead_tui.engine.watch import history_path, watch_key
from tests.conftest import FAST, wait_until
from tests.e2e.test_cold_start import _children_of

HOISTED = """    bt = [list(col) for col in zip(*b)]
    for i in range(n):
        ai, ci = a[i], c[i]
        for j in range(m):
            bj = bt[j]
            s = 0.0
            for k in range(p):
                s += ai[k] * bj[k]
            ci[j] = s"""
NAIVE = """    for i in range(n):
        for j in range(m):
            s = 0.0
            for k in range(p):
                s += a[i][k] * b[k][j]
            c[i][j] = s"""


def _save(path: Path, text: str) -> None:
    """An editor's save: write a temporary file beside it, then rename it over the file."""
    partial = path.with_name(f".{path.name}.swp")
    partial.write_text(text)
    os.replace(partial, path)


def _watch(path: Path, out: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "overhead_tui", "watch", str(path), *FAST, "--repeats", "5", *more],
        stdin=subprocess.DEVNULL,
        stdout=out.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
    )


def _lines(out: Path, word: str) -> list[str]:
    return [line for line in out.read_text().splitlines() if word in line]


def test_saves_are_measured_a_broken_one_is_one_line_and_the_history_is_kept(tmp_path):
    path = scaffold("watched", "python_naive", tmp_path / "mine")
    out, history = tmp_path / "out.txt", tmp_path / "history.json"
    process = _watch(path, out, "--json", str(history))
    try:
        wait_until(lambda: _lines(out, "GFLOP/s"), what="the first measurement")
        _save(path, path.read_text().replace(NAIVE, HOISTED))  # hoist the inner loop's lookups
        wait_until(lambda: len(_lines(out, "GFLOP/s")) == 2, what="the save's measurement")
        broken = path.read_text().replace("    return c\n", "    return c(\n", 1)
        _save(path, broken)
        wait_until(lambda: _lines(out, "not measured"), what="the broken save's line")
        fixed = broken.replace("    return c(\n", "    return c\n", 1)
        _save(path, fixed)  # twice within the debounce: measured once
        _save(path, fixed + "\n")
        wait_until(lambda: len(_lines(out, "GFLOP/s")) == 3, what="the fixed save's measurement")
        time.sleep(2.0)  # a second measurement of the double save would show by now
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, out.read_text()
    measured = _lines(out, "GFLOP/s")
    assert len(measured) == 3, out.read_text()  # the first, the hoisted, the fixed (once)
    failed = _lines(out, "not measured")
    assert len(failed) == 1 and "syntax error" in failed[0]
    assert "the last good result stays" in failed[0]
    assert " the last's " in measured[1] or "no detectable change" in measured[1]
    saved = json.loads(history.read_text())  # exported on Ctrl-C too
    assert [v["status"] for v in saved] == ["ok", "ok", "not measured", "ok"]
    assert all(v["samples_s"] for v in saved if v["status"] == "ok")
    kept = history_path(watch_key("watched", path.resolve()))
    assert kept.is_relative_to(Path(os.environ["XDG_DATA_HOME"]))
    assert len(kept.read_text().splitlines()) == 4  # appended, one line a save


def test_ctrl_c_stops_watching_with_130_and_leaves_nothing_running(tmp_path):
    path = scaffold("interrupted", "python_naive", tmp_path / "mine")
    out = tmp_path / "out.txt"
    process = _watch(path, out)
    try:
        wait_until(lambda: _lines(out, "GFLOP/s"), what="the first measurement")
        time.sleep(0.2)  # in the wait for a save
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130
    assert not _children_of(process.pid)
    said = _lines(out, "stopped watching")
    assert len(said) == 1 and said[0].startswith("interrupted: stopped watching (every save")


def test_a_file_that_is_not_there_is_one_line_and_exit_2(tmp_path, cli):
    done = cli("watch", tmp_path / "missing.py")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "overhead-tui new NAME" in done.stderr


def test_an_export_path_that_is_the_watched_file_by_a_hard_link_is_refused(tmp_path, cli):
    path = scaffold("linked", "python_naive", tmp_path / "mine")
    os.link(path, tmp_path / "hard.json")
    done = cli("watch", path, *FAST, "--count", "1", "--json", tmp_path / "hard.json")
    assert done.returncode == 2 and "is the watched file" in done.stderr
    assert path.read_text().startswith('"""')  # the scenario, not a JSON history


def test_an_export_that_cannot_be_written_at_the_end_is_one_line_and_exit_2(tmp_path):
    path = scaffold("exported", "python_naive", tmp_path / "mine")
    folder = tmp_path / "exports"
    folder.mkdir()
    out = tmp_path / "out.txt"
    process = _watch(path, out, "--count", "2", "--json", str(folder / "h.json"))
    try:
        wait_until(lambda: _lines(out, "GFLOP/s"), what="the first measurement")
        folder.rmdir()  # gone before the export
        _save(path, path.read_text().replace(NAIVE, HOISTED))
        process.wait(timeout=120)
    finally:
        process.kill()
    said = out.read_text()
    assert process.returncode == 2, said
    assert "Traceback" not in said and "cannot write" in said and "every save is kept" in said
