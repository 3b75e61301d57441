"""Profiler slowdowns against the profile run's own baseline, "within noise", blind-spot notes.

No profiler runs here: ``run_command`` (the unprofiled baseline), ``detect`` and the backends
are replaced by fakes, so only what ``profile_scenario`` does with their results is tested.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from overhead_tui.engine.spawn import CommandResult
from overhead_tui.export.markdown import MarkdownExporter
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.profile_text import render
from overhead_tui.profilers import profile as profile_mod
from overhead_tui.profilers.capabilities import Capability
from overhead_tui.profilers.outcome import NO_SCALENE_TIME
from overhead_tui.summary.profile import backend_from_json
from overhead_tui.worker.protocol import Profiled
from tests.conftest import RECORDED_SUMMARY, fixture_summary

BASELINE_S = 0.010
"""The fake unprofiled run's seconds per call."""
PROFILED_S = {"perf": 0.020, "pyspy": 0.0087, "scalene": 0.0102}
"""Each fake backend's profiled seconds per call: 2× slower, faster (noise), within 5 %."""

DETAILS = {
    "callgrind": {"n": 16, "instructions_per_fma": 600.0, "floats_per_fma": 2.0},
    "pyspy": {"native": True, "samples": 40, "native_fraction": 0.1, "errors": 0, "top_frames": []},
    "scalene": {"lines": [], "totals": {"python": 0.5, "native": 0.1, "system": 0.4}},
}
"""What each fake backend reports besides its status (the views read these)."""


@pytest.fixture
def fake_backends(monkeypatch):
    """Every backend available and 'run'; the baseline worker's specs are recorded."""
    baseline_specs = []

    def run_command(argv, timeout_s, env, cancel=None):
        baseline_specs.append(json.loads(argv[-1]))
        profiled = Profiled(calls=200, per_call_s=BASELINE_S)
        return CommandResult(0, False, "", "", [profiled])

    def detect(names):
        return {name: Capability(name, True, "1.0", path=f"/bin/{name}") for name in names}

    def run_backend(name, cap, python, worker, spec, n, timeout_s, cancel=None):
        part = {"status": "ok", **DETAILS.get(name, {})}
        record = backend_from_json(name, json.loads(json.dumps(part)))
        return replace(record, profiled_per_call_s=PROFILED_S.get(name))

    monkeypatch.setattr(profile_mod, "run_command", run_command)
    monkeypatch.setattr(profile_mod, "detect", detect)
    monkeypatch.setattr(profile_mod, "_run_backend", run_backend)
    return baseline_specs


def _spec(name):
    return select(discover(), [name])[0]


def test_slowdowns_use_the_baseline_measured_in_the_same_profile_run(fake_backends):
    profile = profile_mod.profile_scenario(_spec("python_naive"), 16, duration_s=1.5)
    result = profile.to_json()
    (baseline,) = fake_backends  # one unprofiled worker, at the profile's n and duration
    assert baseline["mode"] == "profile" and baseline["n"] == 16
    assert baseline["duration_s"] == 1.5
    assert result["baseline_source"] == "profile_run"
    assert result["baseline_per_call_s"] == BASELINE_S and result["baseline_calls"] == 200
    for name, seconds in PROFILED_S.items():
        assert result["backends"][name]["slowdown"] == pytest.approx(seconds / BASELINE_S)
    assert "slowdown" not in result["backends"]["callgrind"]  # smaller n: no ratio
    assert "the same profile run" not in profile_mod.baseline_text(None)  # no baseline: said so
    assert "just before the profilers" in profile_mod.baseline_text(profile)


@pytest.mark.parametrize("ratio", [0.96, 0.999, 1.0, 1.03])
def test_a_ratio_within_the_tolerance_of_one_is_within_noise(ratio):
    text = profile_mod.slowdown_text(ratio)
    assert text.startswith("within noise") and f"{ratio:.2f}×" in text
    assert "faster" not in text and "slower" not in text


def test_a_ratio_far_below_one_is_no_slowdown_and_blames_the_baseline_not_the_profiler():
    text = profile_mod.slowdown_text(0.82)
    assert text.startswith("no slowdown measured (0.82×, more than 5 % below")
    assert "within noise" not in text and "faster" not in text


def test_a_ratio_beyond_the_tolerance_is_a_slowdown():
    assert profile_mod.slowdown_text(1.5) == "1.50× slower under the profiler"
    assert profile_mod.slowdown_text(None) == ""


def test_views_show_within_noise_for_a_profiler_that_read_faster(fake_backends):
    result = profile_mod.profile_scenario(_spec("python_naive"), 16, duration_s=1.0)
    text = render(result)
    assert "faster" not in text
    assert "pyspy: ok (version 1.0), no slowdown measured (0.87×" in text
    assert "perf: ok (version 1.0), 2.00× slower under the profiler" in text
    assert "baseline: an unprofiled worker run in this profile run" in text
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.scenario("python_hoisted").profile = result
    markdown = MarkdownExporter().render(summary)
    assert "| python_hoisted | pyspy | ok | no slowdown measured (0.87×" in markdown
    assert "faster under" not in markdown


def test_scalene_and_pyspy_note_that_they_miss_blas_threads_on_a_dense_kernel_rung(
    fake_backends,
):
    result = profile_mod.profile_scenario(_spec("numpy_matmul"), 16, duration_s=1.0)
    parts = result.to_json()["backends"]
    scalene, pyspy = parts["scalene"], parts["pyspy"]
    assert scalene["notes"] == [profile_mod.BLIND_SPOTS["scalene"]]
    assert "BLAS/OpenMP worker threads is not attributed to lines" in scalene["notes"][0]
    assert pyspy["notes"] == [profile_mod.BLIND_SPOTS["pyspy"]]
    assert "notes" not in parts["perf"]  # perf samples every thread
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.scenario("python_hoisted").profile = result
    markdown = MarkdownExporter().render(summary)
    assert f"- python_hoisted, scalene: {profile_mod.BLIND_SPOTS['scalene']}" in markdown
    assert f"note: {profile_mod.BLIND_SPOTS['scalene']}" in render(result)


def test_no_thread_note_on_python_naive_even_beside_a_blas_pool(fake_backends):
    """The worker's BLAS pool (``blas_threads``) is there in every rung; only a rung that calls
    into a library can spend time in it."""
    result = profile_mod.profile_scenario(_spec("python_naive"), 16, duration_s=1.0)
    assert all("notes" not in part for part in result.to_json()["backends"].values())
    assert "note:" not in render(result)
    pooled = profile_mod.profile_scenario(_spec("python_naive"), 16, blas_threads=4)
    assert all("notes" not in part for part in pooled.to_json()["backends"].values())
    library = profile_mod.profile_scenario(_spec("numpy_row_vectorized"), 16, blas_threads=4)
    assert library.backends["scalene"].notes == (profile_mod.BLIND_SPOTS["scalene"],)


def test_pyspy_without_native_frames_says_it_cannot_name_c_frames():
    no_native = backend_from_json("pyspy", {"status": "ok", "native": False})
    notes = profile_mod.blind_spots("pyspy", ("interpreter_dispatch",), None, no_native)
    assert notes == [profile_mod.PYSPY_NO_NATIVE]
    native = backend_from_json("pyspy", {"status": "ok", "native": True})
    assert profile_mod.blind_spots("pyspy", (), None, native) == []


def test_the_profile_tabs_say_within_noise_and_carry_the_scalene_note(fake_backends):
    from overhead_tui.tui.widgets.profile_tabs import _head

    result = fixture_summary(RECORDED_SUMMARY).scenario("python_hoisted")
    result.profile = profile_mod.profile_scenario(_spec("numpy_matmul"), 16, duration_s=1.0)
    backends = result.profile.backends
    lines = [str(x.content) for x in _head(result, backends["scalene"], "Scalene --cpu-only")]
    assert lines[0] == "Scalene --cpu-only 1.0: ok, within noise (1.02×, tolerance 5 %)"
    assert "just before the profilers" in lines[1]
    assert lines[2] == f"  note: {profile_mod.BLIND_SPOTS['scalene']}"
    pyspy = [str(x.content) for x in _head(result, backends["pyspy"], "py-spy --native")]
    assert "no slowdown measured (0.87×" in pyspy[0] and "faster" not in " ".join(pyspy)


def test_a_scalene_failure_on_a_dense_kernel_rung_carries_the_blind_spot_note(
    fake_backends, monkeypatch
):
    ok_backend = profile_mod._run_backend

    def scalene_fails(name, *args):
        if name == "scalene":
            return backend_from_json(name, {"status": "failed", "reason": NO_SCALENE_TIME})
        return ok_backend(name, *args)

    monkeypatch.setattr(profile_mod, "_run_backend", scalene_fails)
    result = profile_mod.profile_scenario(_spec("numpy_matmul"), 16, duration_s=1.0)
    scalene = result.to_json()["backends"]["scalene"]
    assert scalene["notes"] == [profile_mod.BLIND_SPOTS["scalene"]]
    # not a failure: Scalene ran and cannot see the BLAS threads; the others are read instead
    assert scalene["status"] == profile_mod.BLIND and "perf and callgrind" in scalene["fix"]
    assert render(result).count(": failed") == 0
    naive = profile_mod.profile_scenario(_spec("python_naive"), 16, duration_s=1.0)
    assert "notes" not in naive.to_json()["backends"]["scalene"]


def test_cannot_see_is_only_for_threads_the_rung_really_runs(fake_backends, monkeypatch):
    """A pure-Python rung's worker has a BLAS pool it never uses: Scalene's "nothing recorded"
    there is a failure, not the BLAS blind spot; and a failure other than "nothing recorded"
    (a missing file) stays a failure on a BLAS rung too."""
    ok_backend = profile_mod._run_backend
    reason = {"value": NO_SCALENE_TIME}

    def scalene_fails(name, *args):
        if name == "scalene":
            return backend_from_json(name, {"status": "failed", "reason": reason["value"]})
        return ok_backend(name, *args)

    monkeypatch.setattr(profile_mod, "_run_backend", scalene_fails)
    hoisted = profile_mod.profile_scenario(
        _spec("python_hoisted"), 16, duration_s=1.0, blas_threads=2
    )
    part = hoisted.to_json()["backends"]["scalene"]
    assert part["status"] == "failed" and "notes" not in part
    assert "cannot see" not in part["reason"]
    reason["value"] = "overhead_tui.worker.__main__ is not in /x (a broken installation)"
    blas = profile_mod.profile_scenario(_spec("numpy_matmul"), 16, duration_s=1.0)
    part = blas.to_json()["backends"]["scalene"]
    assert part["status"] == "failed" and part["reason"] == reason["value"]
    assert profile_mod.blind_spots("scalene", ("library_layers",), 2, blas.backends["pyspy"])


def test_callgrind_says_when_it_counted_another_blas_kernel_than_the_timed_one():
    from overhead_tui.summary.profile import CallgrindResult, PerfResult, SymbolRow

    perf = PerfResult("ok", top_symbols=(SymbolRow("dgemm_kernel_SKYLAKEX", "libopenblas"),))
    emulated = CallgrindResult("ok", top_symbols=(SymbolRow("dgemm_kernel_HASWELL", "lib"),))
    parts = profile_mod.kernel_family_notes({"perf": perf, "callgrind": emulated})
    assert "HASWELL kernels while perf saw SKYLAKEX" in parts["callgrind"].notes[-1]
    same = CallgrindResult("ok", top_symbols=(SymbolRow("dgemm_kernel_SKYLAKEX", "lib"),))
    assert profile_mod.kernel_family_notes({"perf": perf, "callgrind": same})["callgrind"] == same


def test_a_profile_whose_scenario_never_ran_shows_no_unprofiled_time():
    """A rung that could not run here (CC pointing nowhere) printed 'unprofiled 0 ms per call':
    a number nobody measured."""
    from overhead_tui.summary.profile import ProfileRecord

    text = render(ProfileRecord(scenario="cython_untyped", n=16, error="Unavailable: no C"))
    assert "0 ms" not in text and "no unprofiled time (the scenario did not run)" in text
    timed = render(ProfileRecord(scenario="python_naive", n=16, baseline_per_call_s=0.002))
    assert "unprofiled 2 ms per call" in timed
