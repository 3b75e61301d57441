"""Impossible speeds and the environment that changes results, judged on recorded values.

No worker runs here: results and machine facts are built in the test, as a run records them.
"""

from __future__ import annotations

import json

import pytest

from overhead_tui.analysis.derive import compute_vs_dense
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.engine.results import apply_message
from overhead_tui.export import EXPORTERS
from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.machine.environment import (
    dense_kernel_warning,
    judge_environment,
    steering_environment,
    thread_limit_warnings,
)
from overhead_tui.machine.limits import apply_limits, measured_peak, reject_impossible, speed_bound
from overhead_tui.present.ladder_rows import ladder_row
from overhead_tui.summary.codec import to_json
from overhead_tui.summary.measured import BlasLibrary
from overhead_tui.summary.probes import probe_records
from overhead_tui.summary.records import MachineInfo, RunSummary
from overhead_tui.worker.protocol import from_dict
from tests.conftest import FIXTURES, scenario_result

ZEN4 = parse_cpuinfo((FIXTURES / "cpuinfo" / "zen4-epyc-2vcpu.txt").read_text())
"""2 cores × 16 FLOP/cycle/core (float64): 96 GFLOP/s at 3 GHz."""
CLOCK_3GHZ = probe_records({"clock": {"value": 3.0, "unit": "GHz"}})


def _rung(name, rung, layers, n, gflops, **extra):
    flops = 2 * n**3
    median = flops / gflops / 1e9
    return scenario_result(
        name,
        rung=rung,
        layers=layers,
        n=n,
        status="ok",
        median_s=median,
        samples_s=[median, median],
        gflops=gflops,
        dense_kernel=extra.pop("dense_kernel", False),
        **extra,
    )


def render(summary, fmt):
    return EXPORTERS[fmt]().render(summary)


def _machine(env=None, isa=("sse2", "avx", "avx2", "fma"), cores=2.0):
    return MachineInfo(
        logical_cpus=int(cores),
        effective_cpus=int(cores),
        effective_cores=cores,
        isa=list(isa),
        environment=dict(env or {}),
    )


# -- impossible speeds ------------------------------------------------------------------------


def test_speed_bound_is_every_core_at_the_measured_clock():
    bound, how = speed_bound(ZEN4, CLOCK_3GHZ, "float64")
    assert bound == pytest.approx(96.0) and "measured clock" in how


def test_speed_bound_falls_back_without_a_clock_and_skips_an_unknown_cpu(monkeypatch):
    monkeypatch.setattr("overhead_tui.machine.limits.max_clock_ghz", lambda: None)
    bound, how = speed_bound(ZEN4, {}, "float64")
    assert ZEN4.nominal_ghz and bound == pytest.approx(2 * 16 * 2 * ZEN4.nominal_ghz)
    assert "nominal" in how
    assert speed_bound(None, CLOCK_3GHZ, "float64")[0] is None


def test_a_rung_faster_than_the_peak_is_impossible_and_loses_its_speed():
    fast = _rung("cached", 5, ["dense_kernel", "parallel"], 512, 5000.0, dense_kernel=True)
    fast.warnings = ["unstable: CV 12% (≥ 10%)"]
    near = _rung("blas", 4, ["dense_kernel"], 512, 100.0)  # 1.04 × peak: rounding, kept
    slow = _rung("python", 1, ["boxing"], 16, 0.05)
    summary = RunSummary(scenarios=[slow, near, fast], probes=dict(CLOCK_3GHZ))
    assert reject_impossible(summary, ZEN4) == ["cached"]
    assert fast.status == "impossible" and not fast.has_speed
    assert fast.median_s is None and fast.gflops is None and fast.warnings == []
    assert fast.samples_s  # the raw samples stay for diagnosis
    assert "faster than the hardware can compute (5,000 GFLOP/s > theoretical peak 96" in (
        fast.error or ""
    )
    assert "cached or not computed" in (fast.error or "")
    assert near.status == "ok" and slow.status == "ok"
    # nothing downstream uses it: no dense kernel, no × dense, no measured peak, no waterfall
    compute_vs_dense(summary)
    assert summary.dense is None and slow.vs_dense is None
    assert measured_peak("float64", {}, summary) == (100.0, "blas")
    assert all("cached" not in (s.from_, s.to) for s in waterfall(summary))
    row = ladder_row(fast)
    assert row[3:8] == ("—", "—", "—", "—", "—") and row[8] == "impossible"
    report = render(summary, "markdown")
    assert "| impossible |" in report and "5,000" in report  # the reason, not a speed cell
    assert ",impossible," in render(summary, "csv")


def test_the_bound_counts_the_cores_the_worker_used(monkeypatch):
    """A one-thread worker (CPU over wall about 1) cannot beat one core's peak at the highest
    clock known (here 2 × the 2.6 GHz nominal: one core may boost above the 3 GHz measured on
    all): a cached product at 100 GFLOP/s is impossible there (83.1 × 1.1), and possible for a
    worker that computed on both cores (96 × 1.1 at the measured clock)."""
    monkeypatch.setattr("overhead_tui.machine.limits.max_clock_ghz", lambda: None)
    alone = _rung("alone", 5, ["other"], 16, 100.0)
    alone.sample_cores = [0.98, 1.04, 1.01]
    both = _rung("both", 6, ["parallel"], 16, 100.0)
    both.sample_cores = [1.7, 1.9, 1.8]
    unread = _rung("unread", 7, ["other"], 16, 100.0)  # no samples' cores: every core counts
    summary = RunSummary(scenarios=[alone, both, unread], probes=dict(CLOCK_3GHZ))
    assert reject_impossible(summary, ZEN4) == ["alone"]
    assert "theoretical peak 83.1 = 1 core ×" in (alone.error or ""), alone.error
    assert "the highest clock known" in (alone.error or "")
    assert both.status == "ok" and unread.status == "ok"


def test_no_cpu_model_means_no_impossible_check():
    fast = _rung("cached", 5, ["other"], 512, 1e9)
    summary = RunSummary(scenarios=[fast], probes=dict(CLOCK_3GHZ))
    assert reject_impossible(summary, None) == [] and fast.status == "ok"


def test_a_summary_with_an_impossible_rung_round_trips_and_older_ones_still_load(tmp_path):
    fast = _rung("cached", 5, ["other"], 512, 5000.0)
    summary = RunSummary(
        scenarios=[fast],
        probes=dict(CLOCK_3GHZ),
        created="2026-01-01T00:00:00+00:00",
        tool={"name": "overhead-tui", "version": "test"},
    )
    summary.machine.environment = {"OPENBLAS_NUM_THREADS": "1"}
    reject_impossible(summary, ZEN4)
    summary.save(tmp_path / "summary.json")
    loaded = RunSummary.load(tmp_path / "summary.json")
    assert loaded.scenarios[0].status == "impossible"
    assert loaded.machine.environment == {"OPENBLAS_NUM_THREADS": "1"}
    for name in ("summary_v1.json", "recorded_summary.json", "recorded_summary_v3.json"):
        old = RunSummary.load(FIXTURES / name)
        assert old.machine.environment == {} and all(s.blas == () for s in old.scenarios)


# -- the environment ----------------------------------------------------------------------------


def test_steering_variables_are_recorded_and_nothing_else():
    env = {
        "OPENBLAS_CORETYPE": "Prescott",
        "OMP_NUM_THREADS": "1",
        "MKL_DEBUG_CPU_TYPE": "5",
        "NUMBA_NUM_THREADS": "2",
        "GOTO_NUM_THREADS": "1",
        "BLIS_NUM_THREADS": "3",
        "HOME": "/root",
        "PATH": "/bin",
        "MY_OMP_NUM_THREADS": "9",
    }
    assert list(steering_environment(env)) == [
        "BLIS_NUM_THREADS",
        "GOTO_NUM_THREADS",
        "MKL_DEBUG_CPU_TYPE",
        "NUMBA_NUM_THREADS",
        "OMP_NUM_THREADS",
        "OPENBLAS_CORETYPE",
    ]


def _dense(gflops, n=1024, kernel="Prescott", threads=2):
    blas = [BlasLibrary(library="openblas", architecture=kernel, threads=threads)]
    return _rung(
        "numpy_matmul",
        21,
        ["dense_kernel", "parallel"],
        n,
        gflops,
        dense_kernel=True,
        blas=blas,
        blas_threads=threads,
    )


def test_a_prescott_dense_kernel_below_half_the_peak_names_the_kernel():
    machine = _machine({"OPENBLAS_CORETYPE": "Prescott"})
    warning = dense_kernel_warning(_dense(13.0), machine, 70.0)
    assert warning is not None
    assert "below half of the theoretical peak" in warning and "18.6 %" in warning
    assert "BLAS kernel Prescott (SSE) on this AVX2 machine" in warning
    assert "OPENBLAS_CORETYPE=Prescott is set" in warning


def test_a_slow_dense_kernel_names_one_thread_and_thread_variables():
    machine = _machine({"OMP_NUM_THREADS": "1"})
    warning = dense_kernel_warning(_dense(20.0, kernel="Haswell", threads=1), machine, 70.0)
    assert warning is not None and "Haswell" not in warning  # native on AVX2: not a cause
    assert "1 thread(s) where 2 cores are available" in warning
    assert "OMP_NUM_THREADS=1 is set" in warning


def test_the_dense_kernel_is_not_judged_when_fast_small_or_without_a_peak():
    machine = _machine({"OPENBLAS_CORETYPE": "Prescott"})
    assert dense_kernel_warning(_dense(40.0), machine, 70.0) is None  # above half
    assert dense_kernel_warning(_dense(1.0, n=64), machine, 70.0) is None  # tiny n: normal
    assert dense_kernel_warning(_dense(1.0), machine, None) is None  # unknown CPU
    other = _rung("numpy_matmul_1thread", 20, ["dense_kernel"], 1024, 1.0)
    assert dense_kernel_warning(other, machine, 70.0) is None  # not the dense kernel
    found = dense_kernel_warning(_dense(5.0, kernel="Haswell"), _machine(), 70.0)
    assert found is not None and "no cause found in the environment" in found


def test_a_thread_variable_is_warned_on_all_threads_rungs_only():
    machine = _machine({"OPENBLAS_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"})
    blas_all = _rung("numpy_matmul", 21, ["dense_kernel", "parallel"], 8, 1.0, blas_threads=1)
    (warning,) = thread_limit_warnings(blas_all, machine)
    assert warning.startswith("thread limit: OPENBLAS_NUM_THREADS=1 is set")
    assert "1 thread(s) of 2 cores" in warning
    one_thread = _rung("numpy_matmul_1thread", 20, ["dense_kernel"], 8, 1.0, blas_threads=1)
    assert thread_limit_warnings(one_thread, machine) == []  # promises one thread
    numba = _rung("numba_parallel", 12, ["simd_compute", "parallel"], 8, 1.0, numba_threads=1)
    assert [w.split(" is set")[0] for w in thread_limit_warnings(numba, machine)] == [
        "thread limit: NUMBA_NUM_THREADS=1"
    ]
    full = _rung("numba_parallel", 12, ["simd_compute", "parallel"], 8, 1.0, numba_threads=2)
    assert thread_limit_warnings(full, machine) == []  # the worker saw every core in use
    c_openmp = _rung("c_openmp", 16, ["simd_compute", "parallel"], 8, 1.0)
    assert thread_limit_warnings(c_openmp, _machine({"OMP_NUM_THREADS": "1"}))
    assert thread_limit_warnings(c_openmp, _machine({"OMP_NUM_THREADS": "8"})) == []


def test_judging_twice_never_duplicates_warnings():
    machine = _machine({"OPENBLAS_NUM_THREADS": "1", "OPENBLAS_CORETYPE": "Prescott"})
    dense = _dense(10.0, threads=1)
    dense.warnings = ["unstable: CV 12% (≥ 10%)"]
    for _ in range(3):
        judge_environment([dense], machine, {"float64": 70.0})
    assert len(dense.warnings) == 3 and dense.warnings[0].startswith("unstable")


def test_apply_limits_puts_the_warnings_next_to_the_number(monkeypatch):
    summary = RunSummary(scenarios=[_dense(10.0)], probes=dict(CLOCK_3GHZ))
    summary.machine.environment = {"OPENBLAS_CORETYPE": "Prescott"}
    monkeypatch.setattr("overhead_tui.machine.limits.cgroup_cpu_quota", lambda: None)
    apply_limits(summary, ZEN4)
    (warning,) = summary.scenarios[0].warnings
    assert "AVX-512 machine" in warning and "Prescott" in warning
    assert ladder_row(summary.scenarios[0])[8] == "ok !"
    report = render(summary, "markdown")
    assert "OPENBLAS_CORETYPE=Prescott is set" in report  # the warning, in the notes
    assert "**Environment** (steers BLAS, OpenMP, numba, MKL): `OPENBLAS_CORETYPE=Prescott`" in (
        report
    )


def test_each_rung_records_every_blas_of_its_worker():
    rung = _rung("scipy_blas_direct", 22, ["dense_kernel", "parallel"], 8, 1.0)
    numpy_blas = {"library": "openblas", "architecture": "Prescott", "threads": 2}
    scipy_blas = {"library": "openblas", "architecture": "Haswell", "threads": 1}
    apply_message(
        rung, from_dict({"kind": "environment", "blas": {**numpy_blas, "libraries": [numpy_blas]}})
    )
    apply_message(
        rung,
        from_dict({"kind": "done", "blas": {**numpy_blas, "libraries": [numpy_blas, scipy_blas]}}),
    )
    assert [b.architecture for b in rung.blas] == ["Prescott", "Haswell"]
    old = _rung("numpy_matmul", 21, ["dense_kernel"], 8, 1.0)
    before_schema_4 = {"kind": "environment", "blas": numpy_blas}  # numpy's BLAS alone
    apply_message(old, from_dict(before_schema_4))
    assert to_json(old.blas) == [numpy_blas] and json.dumps(to_json(old.blas))


def test_a_slow_dense_kernel_beside_another_run_names_the_load_and_the_cores_it_got():
    """Two runs at once (issue 52: "no cause found"): the other processes' share of the CPUs
    while it ran, and the cores its threads got, are the causes."""
    dense = _dense(5.0, kernel="Haswell")
    dense.other_cpu_fraction = 0.48
    dense.sample_thread_cores = [1.1, 1.0, 1.2]
    found = dense_kernel_warning(dense, _machine(), 70.0)
    assert found is not None and "no cause found" not in found
    assert "other processes used 48% of the CPUs while it ran" in found
    assert "its threads got 1.10 of 2 cores while timed" in found
