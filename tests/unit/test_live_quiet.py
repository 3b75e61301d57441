"""The quiet timed window, the run order and probe progress, without processes."""

from __future__ import annotations

from pathlib import Path

from overhead_tui.engine.events import (
    BuildStarted,
    ProbeStarted,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioProgress,
    ScenarioStarted,
)
from overhead_tui.engine.observer import TimedWindow
from overhead_tui.engine.plan import planned_summary, run_order
from overhead_tui.engine.stats import OBSERVER_WARN, describe, stability_warnings
from overhead_tui.plugins.scenarios import discover
from overhead_tui.present.format import build_progress, probe_progress
from overhead_tui.present.live import LiveLadder
from overhead_tui.summary.records import Settings
from overhead_tui.worker.cpu_time import own_cpu_s
from tests.conftest import FIXTURES, fixture_summary


def _specs():
    return sorted(discover([FIXTURES / "fast"]), key=lambda s: s.rung)


def test_run_order_puts_the_dense_kernel_first_and_keeps_the_rest():
    specs = [s for s in discover([]) if s.name in ("python_naive", "numba_ikj", "numpy_matmul")]
    specs.sort(key=lambda s: s.rung)
    order = [specs[i].name for i in run_order(specs)]
    assert order == ["numpy_matmul", "python_naive", "numba_ikj"]
    without_dense = [s for s in specs if not s.dense_kernel]
    assert run_order(without_dense) == [0, 1]


def test_timed_window_measures_this_process_only_inside_the_window():
    window = TimedWindow()
    window.see("sample", 0.0)  # outside a window: nothing
    assert not window.open and window.observer_cpu_s is None
    window.see("timing_started", 10.0)
    assert window.open
    start = own_cpu_s()
    while own_cpu_s() == start:  # some CPU of our own inside the window
        sum(i * i for i in range(10_000))
    window.see("timing_ended", 12.0)
    assert not window.open
    assert window.observer_cpu_s is not None and window.observer_cpu_s > 0
    assert window.observer_fraction == window.observer_cpu_s / 2.0


def test_observer_warning_names_the_app():
    stats = describe([1.0, 1.0, 1.0])
    quiet = stability_warnings(stats, 1, observer_fraction=OBSERVER_WARN / 2, observer="the app")
    assert quiet == []
    loud = stability_warnings(stats, 1, observer_fraction=0.3, observer="the app")
    assert loud == ["the app itself used 30.0% of one CPU while the samples were timed"]


def test_live_ladder_is_quiet_while_samples_or_probes_are_timed():
    specs = _specs()
    summary = planned_summary(specs, Settings(scenarios_dirs=[str(FIXTURES / "fast")]))
    ladder = LiveLadder(summary)
    ladder.apply(RunStarted(summary))
    assert not ladder.quiet
    ladder.apply(BuildStarted("cython_typed", 0, 4, jobs=2))  # nothing is timed while it builds
    assert not ladder.quiet and ladder.build is not None
    ladder.apply(ProbeStarted("dispatch", 0, 3, None))
    assert ladder.quiet and ladder.probe is not None and ladder.build is None
    name = specs[0].name
    ladder.apply(ScenarioStarted(name, 0, len(specs)))
    assert not ladder.quiet and ladder.probe is None
    ladder.apply(ScenarioProgress(name, "running", 1, 3, timed_window=True))
    assert ladder.quiet
    ladder.apply(ScenarioProgress(name, "validating", 3, 3))
    assert not ladder.quiet
    ladder.apply(ScenarioProgress(name, "running", 2, 3, timed_window=True))
    ladder.apply(ScenarioFinished(ladder.rows[name].result, 0, len(specs)))
    assert not ladder.quiet
    ladder.apply(ScenarioProgress(name, "running", 2, 3, timed_window=True))
    ladder.apply(RunFinished(summary))
    assert not ladder.quiet and not ladder.running


def test_probe_progress_names_the_probe_the_count_and_the_time_left():
    assert (
        probe_progress(ProbeStarted("dispatch", 2, 11, 41.6)) == "probe 3/11 dispatch, ~42 s left"
    )
    assert probe_progress(ProbeStarted("clock", 0, 11, None)) == "probe 1/11 clock"


def test_build_progress_names_the_module_the_count_and_the_jobs():
    shown = build_progress(BuildStarted("cython_typed", 2, 9, jobs=2))
    assert shown == "preparing cython_typed (3/9, 2 at a time)"


def test_planned_summary_fills_numpy_and_blas_from_this_process():
    summary = planned_summary([], Settings())
    import numpy

    assert summary.machine.numpy_version == numpy.__version__
    assert summary.machine.blas is not None and summary.machine.blas.library
    other = planned_summary([], Settings(python=str(Path("/nonexistent/python"))))
    assert other.machine.numpy_version is None  # another interpreter reports its own


def test_dense_reference_note_says_which_reference_the_ratios_use():
    from overhead_tui.present.ladder_rows import dense_reference_note

    summary = fixture_summary(FIXTURES / "recorded_summary_v3.json")
    assert summary.dense is not None and dense_reference_note(summary) is None
    dense = summary.dense
    dense.status = "crashed"
    assert "numpy_matmul has no result (crashed)" in (dense_reference_note(summary) or "")
    dense.status, dense.error = "skipped", "not run"  # planned, not run yet
    assert "numpy_matmul has not run yet" in (dense_reference_note(summary) or "")
    summary.scenarios = [s for s in summary.scenarios if not s.dense_kernel]
    assert "no dense kernel was selected (add --scenario numpy_matmul" in (
        dense_reference_note(summary) or ""
    )


def test_quiet_events_pass_only_the_first_progress_inside_a_timed_window():
    from overhead_tui.present.live import quiet_events

    events = [
        ScenarioProgress("a", "validating", 0, 5),
        ScenarioProgress("a", "running", 0, 5, True),  # opens the window: passed (goes quiet)
        ScenarioProgress("a", "running", 1, 5, True),  # held back
        ScenarioProgress("a", "running", 2, 5, True),  # held back
        ScenarioProgress("a", "running", 3, 5, True),  # held back, however long the window
        ScenarioProgress("a", "validating", 5, 5),  # closes the window: passed
        ScenarioProgress("b", "running", 0, 5, True),  # a new window opens: passed
        ScenarioProgress("b", "running", 1, 5, True),  # held back
    ]
    passed = list(quiet_events(events))
    assert [(e.name, e.samples_done) for e in passed] == [
        ("a", 0),
        ("a", 0),
        ("a", 5),
        ("b", 0),
    ]
