"""An eval-loop rung pools its samples from several worker processes (``plan.worker_repeats``)."""

from __future__ import annotations

import json

from overhead_tui.engine.events import ScenarioProgress
from overhead_tui.engine.plan import EVAL_LOOP_PROCESSES, worker_repeats
from overhead_tui.engine.runner import Runner
from overhead_tui.export.markdown import MarkdownExporter
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.format import samples_label
from overhead_tui.summary.records import RunSummary, Settings
from tests.conftest import scenario_declarations


def _spec(name: str, dirs=None):
    return select(discover(dirs), [name])[0]


def test_the_samples_are_shared_among_the_processes_the_first_taking_the_rest():
    naive = _spec("python_naive")
    assert worker_repeats(naive, Settings(repeats=7)) == [3, 2, 2]
    assert worker_repeats(naive, Settings(repeats=2)) == [1, 1]
    assert worker_repeats(naive, Settings(repeats=7, probes=False)) == [7]
    assert worker_repeats(_spec("numpy_matmul"), Settings(repeats=7)) == [7]
    assert len(worker_repeats(naive, Settings(repeats=30))) == EVAL_LOOP_PROCESSES


def test_an_eval_loop_rung_pools_its_samples_from_three_workers_and_counts_once(tmp_path):
    settings = Settings(size=8, repeats=5, min_sample_s=0.001)
    runner = Runner(select(discover(), ["python_naive"]), settings, tmp_path / "run")
    done = [e.samples_done for e in runner.events() if isinstance(e, ScenarioProgress)]
    result = RunSummary.load(tmp_path / "run").scenario("python_naive")
    assert result.status == "ok", result.error
    assert result.worker_processes == 3
    assert len(result.samples_s) == 5
    assert len(result.reference_dispatch_ns) == 3 * 2 * 3  # 3 workers, before and after
    lines = [json.loads(x) for x in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    kinds = [x["kind"] for x in lines if x.get("name") == "python_naive"]
    assert kinds.count("started") == 3
    assert kinds.count("counted") == 1
    assert done == sorted(done) and done[-1] == 5  # the samples count on across the workers
    assert samples_label(result) == "5 samples from 3 worker processes"
    report = MarkdownExporter().render(RunSummary.load(tmp_path / "run"))
    assert "samples of python_naive are pooled from up to 3 worker processes" in report


CRASHES_IN_ITS_SECOND_WORKER = '''
"""An eval-loop rung whose second worker process exits with code 7."""
import os

{declarations}MARKER = {marker!r}


def setup(a, b):
    if os.path.exists(MARKER) and open(MARKER).read() != str(os.getpid()):
        os._exit(7)
    return a, b


def kernel(a, b):
    return a @ b


def to_numpy(c):
    with open(MARKER, "w") as marker:
        marker.write(str(os.getpid()))
    return c
'''


def test_a_further_worker_that_fails_fails_the_rung_and_no_more_start(tmp_path):
    folder = tmp_path / "scenarios"
    folder.mkdir()
    marker = tmp_path / "first-worker-finished"
    declarations = scenario_declarations("second_worker_exits", 108, ["interpreter_dispatch"])
    (folder / "second_worker_exits.py").write_text(
        CRASHES_IN_ITS_SECOND_WORKER.format(declarations=declarations, marker=str(marker))
    )
    spec = _spec("second_worker_exits", [folder])
    settings = Settings(size=8, repeats=6, min_sample_s=0.001)
    for _ in Runner([spec], settings, tmp_path / "run").events():
        pass
    result = RunSummary.load(tmp_path / "run").scenario("second_worker_exits")
    assert result.status == "crashed"
    assert "exited with code 7" in (result.error or "")
    assert result.median_s is None and result.gflops is None
    assert result.worker_processes == 2  # the third never started
    assert len(result.samples_s) == 2  # the first worker's, kept


def test_cancelled_between_its_workers_a_rung_is_skipped_with_its_samples_kept(tmp_path):
    settings = Settings(size=8, repeats=5, min_sample_s=0.001)
    runner = Runner(select(discover(), ["python_naive"]), settings, tmp_path / "run")
    for event in runner.events():
        if isinstance(event, ScenarioProgress) and event.samples_done == 2:
            runner.cancel()  # the first worker took 2 of the 5 samples
    result = RunSummary.load(tmp_path / "run").scenario("python_naive")
    assert result.status == "skipped"
    assert result.error == "cancelled while running"
    assert result.median_s is None and result.gflops is None
    assert 0 < len(result.samples_s) < 5


def test_a_scenario_declares_its_processes_and_the_plan_lists_them(tmp_path):
    """PROCESSES in a scenario file, as probes declare it: a compiled rung pooled from two
    workers, an eval-loop rung from one; the plan is data the runner only executes."""
    from dataclasses import replace

    from overhead_tui.engine.plan import rung_plan
    from overhead_tui.errors import UsageError

    naive, dense = _spec("python_naive"), _spec("numpy_matmul")
    settings = Settings(repeats=5)
    assert worker_repeats(replace(dense, processes=2), settings) == [3, 2]
    assert worker_repeats(replace(naive, processes=1), settings) == [5]
    plan = rung_plan(naive, settings, 64)
    assert plan.n == 64 and [(t.repeats, t.count) for t in plan.workers] == [
        (2, True),
        (2, False),
        (1, False),
    ]
    source = _spec("python_naive").path.read_text()
    for declared, ok in (("PROCESSES = 2\n", True), ("PROCESSES = 99\n", False)):
        folder = tmp_path / declared.split()[-1]
        folder.mkdir()
        text = source.replace('NAME = "python_naive"', 'NAME = "mine"') + declared
        (folder / "mine.py").write_text(text)
        if ok:
            assert _spec("mine", [folder]).processes == 2
        else:
            try:
                _spec("mine", [folder])
            except UsageError as exc:
                assert "PROCESSES must be 1 to 31" in str(exc) and "\n" not in str(exc)
            else:
                raise AssertionError("PROCESSES = 99 was accepted")
