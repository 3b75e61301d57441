"""Turning recorded worker events into results, including every failure path."""

from __future__ import annotations

import signal

import pytest

from overhead_tui.analysis.derive import compute_vs_dense
from overhead_tui.engine.results import apply_message, finish, new_result
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary.records import RunSummary
from overhead_tui.worker.protocol import from_dict

GOOD = [
    {"kind": "started", "pid": 1},
    {"kind": "environment", "blas": {"threads": 2}, "numba_threads": None},
    {"kind": "compiled", "first_call_s": 0.9},
    {
        "kind": "validated",
        "phase": "first",
        "ok": True,
        "max_abs_error": 1e-15,
        "tolerance": 1e-13,
    },
    {"kind": "calibrated", "loops": 1},
    {"kind": "warmup", "value_s": 0.11},
    *({"kind": "sample", "index": i, "value_s": v} for i, v in enumerate([0.1, 0.1, 0.1])),
    {"kind": "validated", "phase": "last", "ok": True, "max_abs_error": 1e-15, "tolerance": 1e-13},
    {"kind": "done", "blas": {"threads": 1}},
]


def _result(name="python_naive", n=10):
    spec = next(s for s in discover() if s.name == name)
    return new_result(spec, n, "float64")


def _replay(events, returncode=0, timed_out=False, stderr=""):
    result = _result()
    messages = [from_dict(event) for event in events]  # recorded lines, as the runner reads them
    for message in messages:
        apply_message(result, message)
    finish(result, messages, returncode, timed_out, 5.0, stderr)
    return result


def test_good_run_gets_stats_flops_and_compile_time():
    r = _replay(GOOD)
    assert r.status == "ok" and r.error is None
    assert r.flops == 2000 and r.median_s == pytest.approx(0.1)
    assert r.gflops == pytest.approx(2000 / 0.1 / 1e9)
    assert r.ns_per_fma == pytest.approx(0.1 / 1000 * 1e9)
    assert r.compile_s == pytest.approx(0.8)
    assert r.warmups_s == (0.11,) and len(r.samples_s) == 3
    assert r.blas_threads == 1


def test_invalid_result_never_carries_a_speed():
    events = [
        *GOOD[:3],
        {
            "kind": "validated",
            "phase": "first",
            "ok": False,
            "max_abs_error": 0.5,
            "reason": "element (0, 0) is off",
        },
        {"kind": "done"},
    ]
    r = _replay(events)
    assert r.status == "invalid" and "element (0, 0)" in r.error
    assert r.median_s is None and r.gflops is None and r.max_abs_error == 0.5


@pytest.mark.parametrize(
    ("kwargs", "status", "text"),
    [
        ({"returncode": -signal.SIGSEGV}, "crashed", "SIGSEGV"),
        ({"returncode": -signal.SIGKILL}, "crashed", "out-of-memory"),
        ({"returncode": 7}, "crashed", "exited with code 7"),
        ({"returncode": -9, "timed_out": True}, "timeout", "no result after 5 s"),
    ],
)
def test_worker_endings(kwargs, status, text):
    r = _replay(GOOD[:4], **kwargs)
    assert r.status == status and text in r.error and r.median_s is None


def test_error_events():
    r = _replay([{"kind": "error", "cause": "exception", "message": "ValueError: x"}], 3)
    assert (r.status, r.error) == ("error", "ValueError: x")
    r = _replay(
        [
            {
                "kind": "error",
                "cause": "missing_dependency",
                "message": "No module",
                "module": "numba",
            }
        ],
        3,
    )
    assert r.status == "skipped" and "pip install numba" in r.error


def test_vs_dense_is_time_per_flop_ratio():
    summary = RunSummary(scenarios=[_result("python_naive", 10), _result("numpy_matmul", 20)])
    slow, dense = summary.scenarios
    for r, median in ((slow, 1.0), (dense, 0.01)):
        r.status, r.median_s, r.samples_s = "ok", median, [median]
    compute_vs_dense(summary)
    # per flop: 1.0/2000 vs 0.01/16000 -> 800x
    assert slow.vs_dense == pytest.approx(800.0)
    assert dense.vs_dense == pytest.approx(1.0)
    dense.status = "invalid"
    compute_vs_dense(summary)
    assert slow.vs_dense is None


def test_a_run_without_probes_still_gets_its_waterfall():
    from overhead_tui.analysis.derive import derive
    from tests.conftest import RECORDED_SUMMARY, fixture_summary

    summary = fixture_summary(RECORDED_SUMMARY)
    summary.probes = {}
    summary.waterfall = []
    for result in summary.scenarios:
        result.breakdown = None
    derive(summary, None)
    ok = [r for r in summary.scenarios if r.has_speed]
    assert len(summary.waterfall) == len(ok) - 1  # one step between consecutive ok rungs


@pytest.mark.parametrize(
    ("kinds", "phase"),
    [
        (["started"], "importing or setting up"),
        (["started", "environment"], "in its setup or first call (building, compiling"),
        (["started", "environment", "compiled", "validated"], "warming up or calibrating"),
        (["started", "environment", "compiled", "validated", "calibrated"], "timing"),
    ],
)
def test_a_timeout_names_the_phase_the_worker_was_in(kinds, phase):
    from types import SimpleNamespace

    result = _result()
    finish(result, [SimpleNamespace(kind=k) for k in kinds], None, True, 8.0, "")
    assert result.status == "timeout" and f"(was {phase}" in result.error
