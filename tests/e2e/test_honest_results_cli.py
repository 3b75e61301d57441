"""Whole runs: an impossible speed is never shown, the steering environment is recorded and
judged (behaviour only: no speed is asserted)."""

from __future__ import annotations

import math
import platform

import pytest

from overhead_tui.machine.cgroup import cgroup_cpu_quota, effective_cores
from overhead_tui.machine.cpu import read_cpu_model
from overhead_tui.machine.environment import OPENBLAS_KERNEL_SIMD
from overhead_tui.machine.limits import speed_bound
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST, FAULTY, run_cli


def _run(tmp_path, *args, env=None):
    return run_cli("run", *args, "--out", tmp_path / "run", env=env)


def _run_with(tmp_path, env, *scenarios):
    """A FAST run of ``scenarios`` with the variables ``env`` set: it succeeds and its summary
    records them.  Returns (the process, the summary)."""
    chosen = [arg for name in scenarios for arg in ("--scenario", name)]
    proc = _run(tmp_path, *chosen, *FAST, "--json", tmp_path / "s.json", env=env)
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(tmp_path / "s.json")
    for variable, value in env.items():
        assert summary.machine.environment[variable] == value
    return proc, summary


def _numpy_blas() -> dict:
    import numpy  # noqa: F401  (loads numpy's BLAS into this process)
    from threadpoolctl import threadpool_info

    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    ours = [p for p in pools if "numpy" in p.get("filepath", "")]
    return (ours or pools or [{}])[0]


def test_a_cached_result_is_impossible_and_never_shown_as_a_speed(tmp_path):
    if speed_bound(read_cpu_model(), {}, "float64")[0] is None:
        pytest.skip("no CPU model or clock here: the impossible check is documented to skip")
    proc = _run(
        tmp_path,
        "--scenarios-dir",
        FAULTY,
        "--scenario",
        "cached",
        "--scenario",
        "numpy_matmul",
        *["--size", "512", "--repeats", "2", "--min-time", "0.001", "--no-probes"],
        *["--json", tmp_path / "s.json", "--markdown", tmp_path / "r.md"],
        *["--csv", tmp_path / "r.csv"],
    )
    assert proc.returncode == 1, proc.stderr  # like invalid: the run is not all ok
    summary = RunSummary.load(tmp_path / "s.json")
    cached = summary.scenario("cached")
    assert cached is not None and cached.status == "impossible", cached and cached.error
    assert "faster than the hardware can compute" in (cached.error or "")
    assert cached.median_s is None and cached.gflops is None and cached.vs_dense is None
    assert not cached.has_speed and cached.samples_s
    # the dense kernel, × dense and the measured peak ignore it (it declares dense_kernel too)
    assert summary.dense is not None and summary.dense.name == "numpy_matmul"
    assert summary.machine.peak_gflops["float64"].measured_by == "numpy_matmul"
    (line,) = [x for x in proc.stdout.splitlines() if x.split()[1:2] == ["cached"]]
    assert line.split()[2:] == ["512", "—", "—", "—", "—", "—", "impossible"]
    assert "cached: impossible — faster than the hardware can compute" in proc.stdout
    report = (tmp_path / "r.md").read_text()
    assert "| 111 | cached | 512 | — | — | — | — | — | impossible |" in report
    (row,) = [x for x in (tmp_path / "r.csv").read_text().splitlines() if ",cached," in x]
    assert ",impossible,,,,,,," in row


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="an x86 OpenBLAS kernel")
def test_openblas_coretype_is_recorded_in_the_machine_facts_and_the_rungs_blas(tmp_path):
    if _numpy_blas().get("internal_api") != "openblas":
        pytest.skip("numpy does not use OpenBLAS here")
    _, summary = _run_with(tmp_path, {"OPENBLAS_CORETYPE": "Prescott"}, "numpy_matmul")
    rung = summary.scenario("numpy_matmul")
    assert rung is not None and rung.blas and rung.blas[0].library == "openblas"
    kernel = rung.blas[0].architecture
    # OpenBLAS names the forced kernel Prescott (or Katmai in 0.3.31): an SSE-era kernel
    assert OPENBLAS_KERNEL_SIMD.get(str(kernel).lower()) == "sse", kernel
    assert summary.machine.blas.architecture == kernel
    assert summary.machine.blas.source == "the dense kernel's worker (numpy_matmul)"


def test_a_thread_variable_is_recorded_and_warned_about_on_all_threads_rungs(tmp_path):
    if math.floor(effective_cores(cgroup_cpu_quota())) < 2:
        pytest.skip("one core: a one-thread limit changes nothing here")
    proc, summary = _run_with(
        tmp_path, {"OPENBLAS_NUM_THREADS": "1"}, "numpy_matmul", "numpy_matmul_1thread"
    )
    all_threads = summary.scenario("numpy_matmul")
    one_thread = summary.scenario("numpy_matmul_1thread")
    assert all_threads is not None and one_thread is not None
    limits = [w for w in all_threads.warnings if w.startswith("thread limit:")]
    assert limits and "OPENBLAS_NUM_THREADS=1" in limits[0], all_threads.warnings
    assert not [w for w in one_thread.warnings if w.startswith("thread limit:")]
    (line,) = [x for x in proc.stdout.splitlines() if x.split()[1:2] == ["numpy_matmul"]]
    assert line.endswith("ok !")
    assert "numpy_matmul: ! " in proc.stdout and "OPENBLAS_NUM_THREADS=1 is set" in proc.stdout
