"""``overhead-tui shapes`` end to end with tiny shapes: real workers, fake (instant) probes."""

from __future__ import annotations

import json

import pytest

from overhead_tui.analysis.shapes import intensity, predicted_crossing
from overhead_tui.cli import main
from overhead_tui.summary.probes import ProbeResult
from overhead_tui.summary.records import RunSummary
from tests.conftest import run_cli

TINY = ["--k", "64", "--n", "48", "--batches", "1,4", "--repeats", "2", "--min-time", "0.001"]


@pytest.fixture
def fake_probes(tmp_path, monkeypatch):
    """Instant probes: 20 GB/s all cores (10 one core), 100 GFLOP/s peak (25 one core)."""
    monkeypatch.setattr(
        "overhead_tui.engine.probe_runs.cache_path", lambda: tmp_path / "probes.json"
    )

    def measure(spec, python, cancel=None):
        value = {"clock": 3.0, "stream_triad": 20.0, "simd_fma": 100.0}.get(spec.name, 1.0)
        details = {
            "stream_triad": {"one_thread_gbs": 10.0},
            "simd_fma": {"one_core_gflops": 25.0},
        }.get(spec.name, {})
        return ProbeResult(
            spec.name, spec.title, spec.unit, spec.layer, value=value, details=details
        )

    monkeypatch.setattr("overhead_tui.engine.probe_runs.measure_probe", measure)


def test_tiny_shapes_sweep_end_to_end(tmp_path, fake_probes, capsys):
    out, md, js = tmp_path / "run", tmp_path / "report.md", tmp_path / "summary.json"
    code = main(
        [
            "shapes",
            "--scenario",
            "numpy_matmul_1thread",
            "--scenario",
            "python_naive",
            *TINY,
            "--out",
            str(out),
            "--markdown",
            str(md),
            "--json",
            str(js),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    summary = RunSummary.load(out)
    record = summary.shapes
    assert (record.k, record.n, record.dtype, record.batches) == (64, 48, "float64", [1, 4])
    ok = [p for p in record.points if p.scenario == "numpy_matmul_1thread"]
    assert [(p.m, p.status) for p in ok] == [(1, "ok"), (4, "ok")]
    for point in ok:
        assert point.intensity == pytest.approx(intensity(point.m, 64, 48, 8))
        assert point.gflops == pytest.approx(2 * point.m * 64 * 48 / point.median_s / 1e9)
        # one-core roofs of a rung without the parallel layer: 25 GFLOP/s, 10 GB/s
        assert point.attainable_gflops == pytest.approx(min(25.0, 10.0 * point.intensity))
        assert point.bound == "memory"
    roofs = record.roofs["numpy_matmul_1thread"]
    assert (roofs.threads, roofs.bandwidth_gbs) == ("one core", 10.0)
    assert roofs.peak_gflops == pytest.approx(25.0)
    predicted = record.crossing["numpy_matmul_1thread"].predicted_m
    assert predicted == pytest.approx(predicted_crossing(64, 48, 8, 25.0 / 10.0))
    # the pure-Python rung has no shape support: skipped with the reason, its sweep ends
    naive = [p for p in record.points if p.scenario == "python_naive"]
    assert [(p.m, p.status) for p in naive] == [(1, "skipped")]
    assert "SHAPES" in naive[0].error and record.stopped["python_naive"] == "skipped"
    # the worker really multiplied (m×k)·(k×n): its record says so
    worker = RunSummary.load(out / "points" / "numpy_matmul_1thread-m4")
    result = worker.scenarios[0]
    assert (result.m, result.k, result.n, result.flops) == (4, 64, 48, 2 * 4 * 64 * 48)
    # outputs: the table on stdout, the JSON and the Markdown report
    assert "numpy_matmul_1thread" in captured.out and "memory" in captured.out
    assert json.loads(js.read_text())["shapes"]["k"] == 64
    report = md.read_text()
    assert "Crossing" in report and "prediction" in report and "NVIDIA A100" in report


def test_default_shape_comes_from_the_caches(tmp_path, fake_probes, monkeypatch, capsys):
    """Without --k/--n, B is sized from the cache sizes and the output says so."""
    monkeypatch.setattr(
        "overhead_tui.commands.shapes.read_cache_sizes", lambda: {"L2": 4096, "L3": 8192}
    )
    code = main(
        [
            "shapes",
            "--scenario",
            "numpy_matmul",
            "--batches",
            "1",
            "--repeats",
            "2",
            "--min-time",
            "0.001",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    record = RunSummary.load(tmp_path / "run").shapes
    assert record.k == record.n == 512  # the smallest multiple of 512 holding 2 × 8 KiB
    assert "last-level cache (L3" in record.size_reason and record.size_reason in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--batches", "0"], "--batches"),
        (["--k", "x"], "--k"),
        (["--scenario", "nope"], "unknown scenario"),
        (["--k", "99999", "--scenario", "numba_ikj"], "maximum"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    proc = run_cli("shapes", *args, "--no-probes", "--out", tmp_path / "run")
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
