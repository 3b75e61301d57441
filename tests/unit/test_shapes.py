"""Rectangular products (issue 16): shapes in inputs, validation and flops; the roofline
arithmetic of a batch sweep on fixed numbers."""

from __future__ import annotations

import numpy as np
import pytest

from overhead_tui.analysis.shapes import (
    attainable_gflops,
    bound,
    intensity,
    large_weights_crossing,
    measured_crossing,
    predicted_crossing,
    recompute,
    reference_crossings,
    ridge_point,
)
from overhead_tui.engine.results import new_result
from overhead_tui.machine.limits import arithmetic_intensity
from overhead_tui.machine.reference import load_shipped
from overhead_tui.plugins.scenarios import ScenarioFileError, discover, read_spec
from overhead_tui.summary.product import estimated_bytes, flops_of
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.shapes import Crossing, Roofs, ShapePoint, ShapesRecord
from overhead_tui.summary.validation import validate_summary
from overhead_tui.worker.inputs import make_inputs
from overhead_tui.worker.validate import validate

# -- shapes in inputs, flops, validation ----------------------------------------------------


def test_inputs_follow_the_shape_and_square_stays_the_same():
    a, b = make_inputs(5, "float64", seed=3, m=2, k=7)
    assert a.shape == (2, 7) and b.shape == (7, 5)
    square_a, square_b = make_inputs(6, "float32", seed=3)
    assert square_a.shape == square_b.shape == (6, 6)
    again_a, _ = make_inputs(6, "float32", seed=3, m=6, k=6)
    assert np.array_equal(square_a, again_a)  # m = k = n is the square product, same numbers


def test_flops_are_2mkn():
    assert flops_of(4) == 2 * 4**3
    assert flops_of(4, m=1, k=3) == 2 * 1 * 3 * 4
    spec = next(s for s in discover() if s.name == "numpy_matmul")
    assert new_result(spec, 8, "float64", m=2, k=3).flops == 2 * 2 * 3 * 8
    assert new_result(spec, 8, "float64").flops == 2 * 8**3


def test_memory_estimate_counts_the_largest_matrix():
    assert estimated_bytes(10, "float64", m=1, k=10) == estimated_bytes(10, "float64")
    assert estimated_bytes(10, "float64", m=40, k=10) == 4 * estimated_bytes(10, "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_validation_follows_the_shape(dtype):
    a, b = make_inputs(6, dtype, seed=1, m=3, k=9)
    assert validate(a @ b, a, b, dtype).ok
    wrong = (a @ b).copy()
    wrong[2, 5] += 1.0
    assert not validate(wrong, a, b, dtype).ok
    transposed = validate((a @ b).T, a, b, dtype)
    assert not transposed.ok and "shape" in transposed.reason


def test_rectangular_intensity_in_limits_matches_square():
    assert arithmetic_intensity(30, "float64", m=30, k=30) == pytest.approx(
        arithmetic_intensity(30, "float64")
    )
    assert arithmetic_intensity(4, "float64", m=1, k=4) == pytest.approx(intensity(1, 4, 4, 8))


def test_shapes_declaration_is_read(tmp_path):
    builtin = {s.name: s.shapes for s in discover()}
    for name in ("numpy_matmul", "numpy_matmul_1thread", "scipy_blas_direct", "numba_ikj"):
        assert builtin[name], name
    assert not builtin["python_naive"]
    source = (
        'NAME = "x"\nTITLE = "x"\nRUNG = 1\nLAYERS = ()\nREMOVES = ()\nDEFAULT_SIZE = 4\n'
        'MAX_SIZE = 8\nDTYPES = ("float64",)\n{extra}\n'
        "def setup(a, b):\n    return a, b\n"
        "def kernel(a, b):\n    return a @ b\n"
        "def to_numpy(c):\n    return c\n"
    )
    path = tmp_path / "x.py"
    path.write_text(source.format(extra=""))
    assert read_spec(path).shapes is False
    path.write_text(source.format(extra='SHAPES = "yes"'))
    with pytest.raises(ScenarioFileError, match="SHAPES must be True or False"):
        read_spec(path)


# -- the roofline arithmetic ----------------------------------------------------------------


def test_intensity_on_fixed_numbers():
    # m = 1, k = n = 1024, float64: 2·1024² / (8·(1024 + 1024² + 1024)) flop/byte
    assert intensity(1, 1024, 1024, 8) == pytest.approx(2 * 1024**2 / (8 * (2048 + 1024**2)))
    assert intensity(1, 1024, 1024, 8) == pytest.approx(0.25, rel=0.01)  # GEMV: ¼ flop/byte
    assert intensity(4, 4, 4, 8) == pytest.approx(2 * 64 / (8 * 48))
    with pytest.raises(ValueError):
        intensity(0, 4, 4, 8)


def test_attainable_and_bound_on_fixed_numbers():
    # 10 GB/s, 50 GFLOP/s: ridge 5 flop/byte
    assert ridge_point(50.0, 10.0) == 5.0
    assert attainable_gflops(1.0, 50.0, 10.0) == 10.0
    assert bound(1.0, 50.0, 10.0) == "memory"
    assert attainable_gflops(8.0, 50.0, 10.0) == 50.0
    assert bound(8.0, 50.0, 10.0) == "compute"
    assert attainable_gflops(8.0, None, 10.0) is None and bound(8.0, 50.0, None) is None


def test_predicted_crossing_solves_intensity_equals_ridge():
    m = predicted_crossing(1024, 1024, 8, ridge=5.0)
    assert m is not None
    assert intensity(1, 1024, 1024, 8) < 5.0
    # I(m*) = ridge, evaluated with the fractional m
    value = 2 * m * 1024 * 1024 / (8 * (m * 1024 + 1024 * 1024 + m * 1024))
    assert value == pytest.approx(5.0)
    # k = n = 1024, s = 8, R = 5: m = 5·8·1024² / (2·1024² − 5·8·2048)
    assert m == pytest.approx(5 * 8 * 1024**2 / (2 * 1024**2 - 5 * 8 * 2048))
    assert large_weights_crossing(8, 5.0) == 20.0
    # B too small: the intensity saturates at 2kn/(s(k+n)) = 8/8 = 1 < 5: never
    assert predicted_crossing(8, 8, 8, ridge=5.0) is None
    assert predicted_crossing(1024, 1024, 8, ridge=None) is None


def _roofline_curve(ms, k, n, s, peak, bandwidth, overlap):
    """Fake measurements: the additive (no overlap) or the max (perfect overlap) model."""
    out = []
    for m in ms:
        memory_s = s * (m * k + k * n + m * n) / (bandwidth * 1e9)
        compute_s = 2 * m * k * n / (peak * 1e9)
        t = max(memory_s, compute_s) if overlap else memory_s + compute_s
        out.append((m, 2 * m * k * n / t / 1e9))
    return out


def test_measured_crossing_on_model_curves():
    k = n = 2048
    ms = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048]
    predicted = predicted_crossing(k, n, 8, ridge=50.0 / 10.0)
    assert predicted == pytest.approx(40 * 2048 / (4096 - 80))  # ≈ 20.4
    additive = _roofline_curve(ms, k, n, 8, 50.0, 10.0, overlap=False)
    assert measured_crossing(additive, k, n, 8, 10.0) == 32  # first batch ≥ the ridge
    overlapped = _roofline_curve(ms, k, n, 8, 50.0, 10.0, overlap=True)
    assert measured_crossing(overlapped, k, n, 8, 10.0) == 64  # within 2× (+ spacing)
    # a kernel streaming B at 60 % of the probe's bandwidth, with its own ridge at the same
    # intensity (30 / 6 = 5): judged against 10 GB/s, the same crossing
    slow = _roofline_curve(ms, k, n, 8, 30.0, 6.0, overlap=False)
    assert measured_crossing(slow, k, n, 8, 10.0) == 32


def test_measured_crossing_edge_cases():
    assert measured_crossing([(1, 2.0)], 64, 64, 8, 10.0) is None  # one point
    assert measured_crossing([(1, 2.0), (2, 4.0)], 64, 64, 8, None) is None  # no bandwidth
    on_slope = _roofline_curve([1, 2, 4], 4096, 4096, 8, 1e6, 10.0, overlap=True)
    assert measured_crossing(on_slope, 4096, 4096, 8, 10.0) is None  # never left it
    # unsorted input, a failed point (gflops None) ignored
    points = [(4, 1.0), (1, 2.5), (2, None)]
    assert measured_crossing(points, 1024, 1024, 8, 10.0) == 4


def test_record_recompute_and_json_round_trip():
    record = ShapesRecord(
        k=1024,
        n=1024,
        dtype="float64",
        batches=[1, 64],
        points=[
            ShapePoint(scenario="a", m=1, status="ok", median_s=0.001, gflops=2.0),
            ShapePoint(scenario="a", m=64, status="ok", median_s=0.002, gflops=60.0),
            ShapePoint(scenario="a", m=128, status="timeout", error="slow"),
        ],
        roofs={"a": Roofs("all cores", 50.0, 10.0)},
    )
    record = recompute(record)
    first = record.points[0]
    assert first.intensity == pytest.approx(intensity(1, 1024, 1024, 8))
    assert first.attainable_gflops == pytest.approx(10.0 * first.intensity)
    assert first.bound == "memory" and record.points[1].bound == "compute"
    assert record.crossing["a"] == Crossing(
        measured_crossing([(1, 2.0), (64, 60.0)], 1024, 1024, 8, 10.0),
        predicted_crossing(1024, 1024, 8, 5.0),
    )
    again = ShapesRecord.from_json(record.to_json())
    assert again == record


def test_reference_machines_predicted_batches():
    rows = reference_crossings(load_shipped(), 4096, 4096, "float64")
    names = {r.machine for r in rows}
    assert {"NVIDIA A100 80GB PCIe", "AMD EPYC 9965"} <= names
    a100 = next(r for r in rows if r.machine.startswith("NVIDIA A100") and r.precision == "float64")
    assert a100.ridge == pytest.approx(9700 / 1935)
    assert a100.large_weights_m == pytest.approx(9700 / 1935 * 8 / 2)
    fp16 = next(r for r in rows if r.machine.startswith("NVIDIA A100") and r.precision == "float16")
    assert fp16.ridge == pytest.approx(312000 / 1935)
    xeon = [r for r in rows if r.machine == "Intel Xeon 6980P"]
    assert [r.precision for r in xeon] == ["float16"]  # it quotes no FP64 peak
    b200 = [r.precision for r in rows if r.machine == "NVIDIA B200"]
    assert b200 == ["float32"]  # its only figure, shown even in a float64 run
    a100 = [r.precision for r in rows if r.machine.startswith("NVIDIA A100")]
    assert a100 == ["float64", "float32", "float16"]  # the run's precision first


def test_summary_with_shapes_validates_and_loads():
    record = ShapesRecord(k=8, n=8, dtype="float64", points=[], roofs={})
    record.points.append(ShapePoint(scenario="a", m=1, status="ok", median_s=0.1, gflops=1.0))
    record = recompute(record)
    tool = {"name": "overhead-tui", "version": "0"}
    summary = RunSummary(shapes=record, tool=tool, created="2025-01-01T00:00:00")
    data = summary.to_json()
    validate_summary(data)
    assert RunSummary.from_json(data).shapes.to_json() == record.to_json()


def test_one_disturbed_point_is_not_the_crossing():
    k = n = 2048
    ms = [1, 2, 4, 8, 16, 32, 64, 128]
    curve = dict(_roofline_curve(ms, k, n, 8, 50.0, 10.0, overlap=False))
    curve[2] /= 3  # a sample slowed down by another process
    assert measured_crossing(list(curve.items()), k, n, 8, 10.0) == 32
    curve[1] *= 3  # and one faster (B partly in cache): the median of three holds
    assert measured_crossing(list(curve.items()), k, n, 8, 10.0) == 32


def test_the_markdown_report_of_a_run_with_shapes_has_the_section():
    from overhead_tui.export.markdown import MarkdownExporter
    from tests.conftest import FIXTURES, fixture_summary

    text = MarkdownExporter().render(fixture_summary(FIXTURES / "shapes_summary.json"))
    assert "From GEMV to GEMM" in text and "prediction from published figures" in text


def test_a_point_above_its_roof_says_so_in_its_bound():
    from overhead_tui.present.shapes_text import point_rows
    from overhead_tui.summary.shapes import ShapePoint, ShapesRecord

    def point(m, gflops):
        return ShapePoint(scenario="numpy_matmul", status="ok", m=m, gflops=gflops,
                          attainable_gflops=10.0, bound="memory", intensity=0.25 * m)  # fmt: skip

    record = ShapesRecord(dtype="float64", k=64, n=64, points=[point(1, 13.0), point(2, 10.2)])
    rows = point_rows(record)
    assert rows[0][-1] == "memory, 1.30× above it" and rows[1][-1] == "memory"


def test_the_modelled_crossing_prices_packing_b_and_whole_register_blocks():
    from overhead_tui.analysis.shapes import modelled_crossing, modelled_seconds
    from overhead_tui.summary.shapes import Roofs

    roofs = Roofs("one core", 50.0, 25.0, 20.0, 8)  # GFLOP/s, GB/s, packing GB/s, MR
    k = n = 1000
    packing = 2 * k * n * 8 / 20e9  # read and write B once: 0.8 ms
    block = 2 * 8 * k * n / 50e9  # 8 rows of the micro-kernel: 0.32 ms
    # every batch up to MR costs one full block; 9 rows cost two
    assert modelled_seconds(1, k, n, 8, roofs) == pytest.approx(packing + block)
    assert modelled_seconds(8, k, n, 8, roofs) == modelled_seconds(1, k, n, 8, roofs)
    assert modelled_seconds(9, k, n, 8, roofs) == pytest.approx(packing + 2 * block)
    # the efficiency halves once the call takes twice its 1.12 ms at m = 1 (B's traffic
    # barely grows with m): 0.8 + 0.32·⌈m/8⌉ ≥ 2.24 ms → ⌈m/8⌉ ≥ 5 → m ≥ 33: the batch 64
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert modelled_crossing(batches, k, n, 8, roofs) == 64
    # twice the packing rate: 0.4 + 0.32·⌈m/8⌉ ≥ 1.44 ms → m ≥ 25: the batch 32
    faster = Roofs("one core", 50.0, 25.0, 40.0, 8)
    assert modelled_crossing(batches, k, n, 8, faster) == 32
    # without a packing rate (an older file) there is no model
    assert modelled_crossing(batches, k, n, 8, Roofs("one core", 50.0, 25.0)) is None
