"""The headless progress line of ``overhead-tui run`` (and the sweeps): a live line on a
terminal, redrawn at most once a second while samples are timed; permanent lines only, with
no control sequences, on a pipe or a dumb terminal."""

from __future__ import annotations

import io

import pytest

from overhead_tui.engine.events import (
    RunFinished,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.present.progress import RunProgress
from overhead_tui.summary.units import fmt_gflops, fmt_seconds
from tests.conftest import RECORDED_SUMMARY, fixture_summary


@pytest.fixture(autouse=True)
def _terminal_env(monkeypatch):
    """Rich reads these: a plain colour terminal 100 columns wide unless a test says more."""
    for name in ("TTY_INTERACTIVE", "TTY_COMPATIBLE", "FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "100")


class Clock:
    """Seconds set by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


SAMPLES_AT = (0.1, 0.3, 0.6, 1.2)
"""When :func:`_play`'s four samples arrive (s after the start): the first three within a
second of the line drawn at the start, the fourth after it."""


def _play(progress: RunProgress, clock: Clock | None = None) -> str:
    """One scenario: started, four samples in a timed window, counted, finished; returns
    its permanent line."""
    clock = clock or Clock()
    summary = fixture_summary(RECORDED_SUMMARY)
    result = summary.scenarios[0]
    progress.show(ScenarioStarted(result.name, 0, 2))
    for done, at in enumerate(SAMPLES_AT, 1):
        clock.now = at
        progress.show(ScenarioProgress(result.name, "running", done, 5, timed_window=True))
    clock.now = 1.5
    progress.show(ScenarioProgress(result.name, "counting", 5, 5))
    progress.show(ScenarioFinished(result, 0, 2))
    progress.show(RunFinished(summary))
    return f"[1/2] {result.name}: ok  {fmt_seconds(result.median_s)}  " + (
        f"{fmt_gflops(result.gflops)} GFLOP/s\n"
    )


def test_on_a_pipe_only_the_permanent_lines_are_written():
    stream = io.StringIO()
    progress = RunProgress(stream, live=False)
    finished = _play(progress)
    assert not progress.live
    assert stream.getvalue() == finished  # no live line, no control sequence


def test_a_dumb_terminal_gets_the_permanent_lines_and_no_control_sequences(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")
    stream = io.StringIO()
    progress = RunProgress(stream, live=True)
    finished = _play(progress)
    assert not progress.live
    assert stream.getvalue() == finished


def test_on_a_terminal_the_line_is_redrawn_at_most_once_a_second_inside_a_timed_window():
    stream = io.StringIO()
    clock = Clock()
    progress = RunProgress(stream, live=True, clock=clock)
    finished = _play(progress, clock)
    assert progress.live
    out = stream.getvalue()
    assert "python_naive: starting" in out
    assert "sample 4/5" in out and "counting" in out
    assert not any(f"sample {n}/5" in out for n in (1, 2, 3))
    assert out.endswith(finished)  # the live line is erased before the permanent one
    assert "\x1b[3" not in out and "\x1b[38" not in out  # no colour, only cursor control


def test_a_note_clears_the_live_line_and_the_next_event_draws_it_again():
    stream = io.StringIO()
    clock = Clock()
    progress = RunProgress(stream, live=True, clock=clock)
    progress.show(ScenarioStarted("python_naive", 0, 1))
    progress.note("a permanent line")
    clock.now = 5.0
    progress.show(ScenarioProgress("python_naive", "running", 1, 5, timed_window=True))
    out = stream.getvalue()
    before, after = out.split("a permanent line\n")
    assert "starting" in before and "sample 1/5" in after
