"""A rung's plan is data (``rung_plan``) and its result a pure fold of its workers' messages
(``rung_result``): the runner only executes the one and feeds the other."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import replace

import pytest

from overhead_tui.analysis.derive import derive
from overhead_tui.engine.events import snapshot
from overhead_tui.engine.plan import rung_plan
from overhead_tui.engine.results import WorkerEnding, new_result, rung_result
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary.records import MEASURED_FIELDS, RunSummary, ScenarioResult, Settings
from overhead_tui.worker.protocol import from_dict
from tests.conftest import FIXTURES, remeasured

from .test_honest_results import CLOCK_3GHZ, ZEN4
from .test_results import GOOD


def _spec(name):
    return next(s for s in discover() if s.name == name)


def _worker(values, returncode=0, timed_out=False, done=True):
    lines = [line for line in GOOD if line["kind"] not in ("sample", "done")]
    lines += [{"kind": "sample", "index": i, "value_s": v} for i, v in enumerate(values)]
    lines += [{"kind": "done", "blas": {"threads": 1}}] if done else []
    return WorkerEnding(tuple(from_dict(x) for x in lines), returncode, timed_out, "")


def _fold(workers, cancelled=False, repeats=6, planned=None):
    planned = planned or new_result(_spec("python_naive"), 10, "float64")
    planned = replace(planned, wall_s=2.0, steal_fraction=0.0)  # the runner's measurements
    return rung_result(planned, workers, 3, repeats, 5.0, cancelled)


def test_the_fold_pools_samples_and_leaves_the_planned_result_alone():
    planned = replace(new_result(_spec("python_naive"), 10, "float64"), wall_s=2.0)
    before = copy.deepcopy(planned)
    result = _fold([_worker([0.1, 0.1]), _worker([0.3, 0.3]), _worker([0.2, 0.2])], planned=planned)
    assert planned == before and result is not planned
    assert result.status == "ok" and result.samples_s == (0.1, 0.1, 0.3, 0.3, 0.2, 0.2)
    assert result.median_s == pytest.approx(0.2) and result.worker_processes == 3
    assert result.wall_s == 2.0 and result.steal_fraction == 0.0


def test_what_was_measured_is_sealed_once_the_fold_is_done():
    """No measured field of a folded result can be assigned again, nor its samples grown;
    the verdict and the derived figures still can; a copy stays sealed."""
    result = _fold([_worker([0.1, 0.1]), _worker([0.2, 0.2])])
    assert result.sealed and isinstance(result.samples_s, tuple)
    for name in ("samples_s", "build", "wall_s", "bytecode"):
        with pytest.raises(dataclasses.FrozenInstanceError, match=f"{name} was measured"):
            setattr(result, name, getattr(result, name))
    with pytest.raises(AttributeError):
        result.samples_s.append(9.0)  # type: ignore[attr-defined]
    result.vs_dense = 2.0  # a derived figure
    assert copy.copy(result).sealed and copy.deepcopy(result).sealed
    # every field is either measured or derived, and the measured ones are real fields
    names = {f.name for f in dataclasses.fields(ScenarioResult)}
    assert names > MEASURED_FIELDS and "samples_s" in MEASURED_FIELDS
    assert not {"status", "median_s", "gflops", "vs_dense", "breakdown"} & MEASURED_FIELDS


def test_the_impossible_verdict_keeps_what_was_measured():
    """A rung faster than the hardware is judged impossible by derive: its speed goes, its
    samples and everything measured stay as the fold left them."""
    result = _fold([_worker([1e-9, 1e-9, 1e-9])])
    measured = {name: getattr(result, name) for name in MEASURED_FIELDS}
    derive(RunSummary(scenarios=[result], probes=dict(CLOCK_3GHZ)), ZEN4)
    assert result.status == "impossible" and result.gflops is None
    assert {name: getattr(result, name) for name in MEASURED_FIELDS} == measured


def test_a_snapshot_is_untouched_by_later_derives_without_a_deep_copy():
    result = _fold([_worker([0.1, 0.1])])
    summary = RunSummary(scenarios=[result])
    held = snapshot(summary)
    assert held.scenarios[0] is not result and held.scenarios[0].samples_s is result.samples_s
    result.vs_dense, result.warnings = 3.0, ["a later derive"]
    summary.waterfall.append(None)  # type: ignore[arg-type]
    assert held.scenarios[0].vs_dense is None and held.scenarios[0].warnings == []
    assert held.waterfall == []


def test_the_last_worker_decides_how_the_rung_ended():
    result = _fold([_worker([0.1, 0.1]), _worker([0.1], returncode=-9, done=False)])
    assert result.status == "crashed" and "SIGKILL" in (result.error or "")
    assert result.median_s is None and result.gflops is None


def test_a_rung_cut_short_by_a_cancel_is_no_result():
    result = _fold([_worker([0.1, 0.1])], cancelled=True)
    assert (result.status, result.error) == ("skipped", "cancelled while running")
    assert result.gflops is None
    never = _fold([], cancelled=True)
    assert (never.status, never.error) == ("skipped", "cancelled before it ran")


def test_a_plan_lists_its_worker_tasks_or_why_it_does_not_run():
    naive = _spec("python_naive")
    plan = rung_plan(naive, Settings(repeats=7), 16)
    assert [t.repeats for t in plan.workers] == [3, 2, 2] and plan.skip is None
    assert [t.count for t in plan.workers] == [True, False, False]
    assert {t.n for t in plan.workers} == {16} and all(t.mode == "run" for t in plan.workers)
    assert all(t.reference_dispatch for t in plan.workers)  # compared with the probes
    # the model prices every rung when the probes run, whatever its file declares
    assert all(t.model for t in plan.workers)
    assert not any(t.model for t in rung_plan(naive, Settings(probes=False), 16).workers)
    skipped = rung_plan(naive, Settings(dtype="int8"), 16)
    assert skipped.workers == () and "does not support int8" in (skipped.skip or "")
    assert not naive.shapes
    assert "non-square" in (rung_plan(naive, Settings(m=4, k=8), 16).skip or "")
    blas = rung_plan(_spec("numpy_matmul"), Settings(m=4, k=8, repeats=5), 16)
    (task,) = blas.workers  # one worker: not compared with the eval-loop probes
    assert (task.m, task.k, task.n, task.count) == (4, 8, 16, False)  # no counts off n³


def test_a_rung_skipped_for_its_dtype_says_which_dtype_to_choose():
    from overhead_tui.engine.plan import rung_plan
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.plugins.selection import select
    from overhead_tui.summary.records import Settings

    (spec,) = select(discover(), ["python_naive"])
    plan = rung_plan(spec, Settings(dtype="bfloat16"), 64)
    assert plan.workers == ()
    assert (
        plan.skip
        == "does not support bfloat16 (supports float64, float32; run it with --dtype float64)"
    )


def test_an_engine_rung_runs_at_its_own_precision_in_a_float_ladder():
    """c_amx_tiles in the float64 ladder said only "does not support float64": the span to
    the matrix engine needed a second run at another dtype."""
    from overhead_tui.engine.plan import planned_summary, rung_dtype, rung_plan
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.plugins.selection import select
    from overhead_tui.summary.records import Settings

    specs = select(discover(), ["python_naive", "c_amx_tiles", "c_avx512_dot"])
    amx, dot = ({s.name: s for s in specs}[name] for name in ("c_amx_tiles", "c_avx512_dot"))
    for run in ("float64", "float32"):
        plan = rung_plan(amx, Settings(dtype=run), 64)
        assert plan.skip is None and {t.dtype for t in plan.workers} == {"bfloat16"}
        assert rung_dtype(dot, Settings(dtype=run)) == "bfloat16"
    assert rung_dtype(dot, Settings(dtype="int8")) == "int8"  # a dtype it computes: that one
    assert rung_dtype(amx, Settings(dtype="float16")) == "float16"  # not its: skipped
    assert "does not support float16" in (rung_plan(amx, Settings(dtype="float16"), 64).skip or "")
    planned = planned_summary(specs, Settings(dtype="float64"))
    assert [r.dtype for r in planned.scenarios] == ["float64", "bfloat16", "bfloat16"]  # rung order


def test_a_float64_run_of_engine_rungs_alone_is_accepted_and_of_python_in_int8_refused():
    import pytest

    from overhead_tui.commands.common import check_request
    from overhead_tui.errors import UsageError
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.plugins.selection import select
    from overhead_tui.summary.records import Settings

    engine = select(discover(), ["numpy_matmul_own_loops"])
    check_request(engine, Settings(dtype="float64", probes=False))  # at its own float16
    with pytest.raises(UsageError, match="no chosen scenario computes int8"):
        check_request(select(discover(), ["python_naive"]), Settings(dtype="int8", probes=False))


def test_a_loaded_summary_keeps_what_it_says_was_measured():
    """A saved run read back is sealed too: a view or a later derive may replace its verdict
    and derived figures, never its samples; a test that wants other samples replaces the
    record (``tests.conftest.remeasured``)."""
    summary = RunSummary.load(FIXTURES / "recorded_summary_v3.json")
    result = summary.scenario("python_naive")
    assert all(s.sealed for s in summary.scenarios)
    with pytest.raises(dataclasses.FrozenInstanceError, match="samples_s was measured"):
        result.samples_s = ()
    result.vs_dense = 1.0
    again = remeasured(summary, "python_naive", samples_s=(1.0,))
    assert again.samples_s == (1.0,) and summary.scenario("python_naive") is again
