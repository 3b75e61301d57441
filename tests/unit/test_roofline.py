"""Roofline arithmetic, ridge points and the tile calculator on fixed numbers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from overhead_tui.analysis.roofline import ridge_point, roofline
from overhead_tui.machine.reference import (
    ReferenceError,
    load_reference,
    machine_ridge_point,
    smallest_compute_bound_tile,
    tile_intensity,
    tile_table,
)
from overhead_tui.summary.probes import ProbeResult
from tests.conftest import FIXTURES, RECORDED_SUMMARY_V3, fixture_summary

PARALLEL = ("numba_parallel", "c_openmp", "scipy_blas_direct", "numpy_matmul")
"""The fixture's ok rungs with the ``parallel`` layer."""


def _summary(peak=100.0, bandwidth=25.0, one_core=50.0):
    summary = fixture_summary(RECORDED_SUMMARY_V3)
    peaks = summary.machine.peak_gflops
    peaks["float64"] = replace(
        peaks["float64"],
        measured=peak,
        measured_by="test",
        one_core=one_core,
        one_core_theoretical=60.0,
    )
    summary.machine.bandwidth_gbs.update(all_cores=bandwidth, one_core=bandwidth / 2)
    summary.probes["scalar_fma"] = ProbeResult(value=1.0)
    return summary


def test_ceilings_points_and_bounds():
    model = roofline(_summary())
    measured = [(c.label, c.gflops) for c in model.ceilings if not c.theoretical]
    assert measured == [
        ("scalar latency (one dependent FMA chain)", 1.0),
        ("SIMD one core, measured", 50.0),
        ("all cores, measured", 100.0),
    ]
    theory = [c.label for c in model.ceilings if c.theoretical]
    assert theory == ["one core, theoretical", "all cores, theoretical"]
    assert model.peak == 100.0  # a theoretical roof is drawn, never attained
    assert model.ridge_point == pytest.approx(4.0)  # 100 GFLOP/s / 25 GB/s
    by_name = {p.name: p for p in model.points}
    # one-thread rungs under one core's roofs: 50 GFLOP/s, 12.5 GB/s, ridge 4 flop/B
    small = by_name["numpy_scalar_loop"]  # n = 48: 2·48 / (3·8) = 4 flop/B, at the ridge
    assert small.intensity == pytest.approx(4.0) and small.bound == "compute"
    assert small.attainable == pytest.approx(50.0)
    naive = by_name["python_naive"]
    assert naive.of_attainable == pytest.approx(naive.gflops / 50.0)
    parallel = [p for p in model.points if p.name in PARALLEL]
    assert parallel and all(p.attainable == pytest.approx(100.0) for p in parallel)
    assert "torch_matmul" not in by_name  # skipped rungs have no point


def test_memory_bound_below_the_ridge():
    model = roofline(_summary(peak=1000.0, bandwidth=20.0, one_core=1000.0))  # one core: 10 GB/s
    naive = next(p for p in model.points if p.name == "python_naive")  # n = 128: 10.67 flop/B
    assert naive.bound == "memory"
    assert naive.attainable == pytest.approx(2 * 128 / 24 * 10.0)


def test_ridge_point_needs_both_figures():
    assert ridge_point(100.0, 20.0) == 5.0
    assert ridge_point(None, 20.0) is None and ridge_point(100.0, 0.0) is None


def test_tile_calculator():
    assert tile_intensity(64, "float64") == pytest.approx(2 * 64**3 / (3 * 64**2 * 8))
    assert tile_intensity(64, "float32") == pytest.approx(2 * 64 / 12)
    with pytest.raises(ValueError):
        tile_intensity(0, "float64")
    # A100 at FP32: 19,500 GFLOP/s / 1,935 GB/s = 10.08 flop/B -> T >= 10.08 · 12 / 2 = 60.5
    a100 = next(m for m in load_reference() if m.name.startswith("NVIDIA A100"))
    ridge = machine_ridge_point(a100, "float32")
    assert ridge == pytest.approx(19500 / 1935)
    assert smallest_compute_bound_tile(ridge, "float32") == 61
    assert smallest_compute_bound_tile(4.0, "float64") == 48  # 2·48 / 24 = 4: at the ridge
    rows = tile_table(61, "float32", [a100], ("this machine", None))
    assert rows[0].compute_bound is None and rows[0].smallest_tile is None
    assert rows[1].compute_bound is True
    assert tile_table(60, "float32", [a100], ("x", None))[1].compute_bound is False


def test_user_reference_file_extends_and_replaces(tmp_path):
    user = tmp_path / "mine.toml"
    user.write_text(
        '[[machines]]\nname = "AMD EPYC 9965"\nkind = "cpu"\nfp64_gflops = 1\nsource = "me"\n'
        '[[machines]]\nname = "Box"\nkind = "cpu"\nbandwidth_gbs = 9\nsource = "me"\n'
    )
    machines = {m.name: m for m in load_reference(user)}
    assert machines["AMD EPYC 9965"].fp64_gflops == 1 and "Box" in machines
    assert "NVIDIA A100 80GB PCIe" in machines
    with pytest.raises(ReferenceError, match="does not exist"):
        load_reference(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[machines]\nname=", "not valid TOML"),
        ('[[machines]]\nname = "x"\nkind = "cpu"\nsource = "s"\n', "needs at least one of"),
        (
            '[[machines]]\nname = "x"\nkind = "cpu"\nsource = "s"\nfp32_gflops = "a"\n',
            r"fp32_gflops must be a positive finite number \(0.001 to 1e\+12\), got 'a'",
        ),
        (
            '[[machines]]\nname = "x"\nkind = "cpu"\nsource = "s"\nfp64_gflop = 1\n',
            "unknown key 'fp64_gflop'",
        ),
        ('[[machines]]\nkind = "cpu"\nsource = "s"\nfp32_gflops = 1\n', "missing name"),
    ],
)
def test_bad_user_reference_file_names_the_problem(tmp_path, text, message):
    user = tmp_path / "bad.toml"
    user.write_text(text)
    with pytest.raises(ReferenceError, match=message) as info:
        load_reference(user)
    assert str(user) in str(info.value)


def test_a_broken_user_file_keeps_the_shipped_machines(tmp_path, monkeypatch):
    from overhead_tui.export import export
    from overhead_tui.machine.reference import reference_machines

    bad = tmp_path / "bad.toml"
    bad.write_text("[[machines]\n")
    monkeypatch.setenv("OVERHEAD_TUI_REFERENCE", str(bad))
    machines, problem = reference_machines()
    assert "NVIDIA A100 80GB PCIe" in {m.name for m in machines}
    assert "not valid TOML" in problem and str(bad) in problem
    report = export(fixture_summary(RECORDED_SUMMARY_V3), tmp_path / "r.md", "markdown")
    text = report.read_text()
    assert "not valid TOML" in text and "| NVIDIA A100 80GB PCIe |" in text
    monkeypatch.setenv("OVERHEAD_TUI_REFERENCE", str(tmp_path / "typo.toml"))
    assert "does not exist" in reference_machines()[1]


def test_labels_that_would_overlap_on_screen_are_joined():
    from overhead_tui.tui.widgets.loglog_plot import PointLabel, merge_labels

    labels = [PointLabel("15", 42.7, 26.0), PointLabel("14", 64.0, 34.0), PointLabel("5", 4, 0.01)]
    joined = merge_labels(labels, (0.0, 2.0), (-2.0, 2.0), grid=(20, 10))  # coarse: one cell
    assert [text for text, _, _ in joined] == ["15,14", "5"]
    apart = merge_labels(labels, (0.0, 2.0), (-2.0, 2.0), grid=(400, 10))  # fine: room for both
    assert [text for text, _, _ in apart] == ["15", "14", "5"]


def test_every_bad_entry_is_named_and_the_good_ones_kept(tmp_path):
    from overhead_tui.machine.reference import reference_machines_and_problems

    user = tmp_path / "mixed.toml"
    user.write_text(
        '[[machines]]\nname = "Inf box"\nkind = "cpu"\nsource = "s"\nfp64_gflops = inf\n'
        '[[machines]]\nname = "NaN box"\nkind = "cpu"\nsource = "s"\nbandwidth_gbs = nan\n'
        '[[machines]]\nname = "Typo"\nkind = "cpu"\nsource = "s"\nfp64_gflop = 1\n'
        '[[machines]]\nname = "Good"\nkind = "cpu"\nsource = "s"\nfp64_gflops = 10\n'
    )
    machines, problems = reference_machines_and_problems(user)
    assert "Good" in {m.name for m in machines}
    assert not {"Inf box", "NaN box", "Typo"} & {m.name for m in machines}
    assert len(problems) == 3
    assert "machines[0] (Inf box): fp64_gflops must be a positive finite number" in problems[0]
    assert "(NaN box): bandwidth_gbs" in problems[1] and "unknown key 'fp64_gflop'" in problems[2]


def test_a_batch_sweep_is_a_trajectory_on_the_roofline():
    from overhead_tui.analysis.roofline import roofline

    model = roofline(fixture_summary(FIXTURES / "shapes_summary.json"))
    assert model.trajectories
    for path in model.trajectories.values():
        batches = [m for m, _, _ in path]
        assert batches == sorted(batches) and batches[0] >= 1
        intensities = [x for _, x, _ in path]
        assert intensities == sorted(intensities)  # a bigger batch moves right, never left
        assert all(g > 0 for _, _, g in path)
    plain = roofline(fixture_summary(FIXTURES / "recorded_summary_v3.json"))
    assert plain.trajectories == {}


def test_a_figure_whose_ridge_would_overflow_is_refused(tmp_path):
    """fp64 1e300 over 1e-10 GB/s passed the check and crashed the Machines screen (an
    infinite ridge point); figures are bounded, so the entry is named and dropped."""
    from overhead_tui.machine.reference import FIGURE_RANGE, reference_machines_and_problems

    bad = tmp_path / "huge.toml"
    bad.write_text(
        '[[machines]]\nname = "huge"\nkind = "cpu"\nsource = "s"\n'
        "fp64_gflops = 1e300\nbandwidth_gbs = 1e-10\n"
    )
    machines, problems = reference_machines_and_problems(bad)
    assert "huge" not in [m.name for m in machines] and FIGURE_RANGE[1] < 1e300
    assert any("huge" in p and "fp64_gflops" in p for p in problems)


def test_a_lower_precision_rung_is_under_its_own_familys_roof():
    """The Xeon's bfloat16 ladder (../shared/data/intel-amx-kvm167, 2026-12-07): vdpbf16ps
    cannot use AMX, so c_avx512_dot is judged against AVX-512 BF16's one-core roof (it reached
    110 of 116), not AMX's 3,480 (4 % of that); the AMX rung against AMX's; and the one-core
    roof of the dtype is named by its family, not as the SIMD probe's."""
    summary = fixture_summary(FIXTURES / "intel-amx-bfloat16.summary.json")
    found = roofline(summary)
    points = {p.name: p for p in found.points}
    dot, tiles = points["c_avx512_dot"], points["c_amx_tiles"]
    family = {f.family: f for f in summary.machine.precision_peaks}
    assert dot.attainable == pytest.approx(family["avx512_bf16"].one_core)
    assert 0.5 < dot.of_attainable <= 1.0
    assert tiles.attainable == pytest.approx(family["amx_bf16"].one_core)
    labels = [c.label for c in found.ceilings]
    assert "AMX BF16 one core, measured" in labels and "SIMD one core, measured" not in labels


def test_a_16_bit_run_is_compared_with_16_bit_engine_figures_never_fp32():
    """The machines screen divided vendor FP32 peaks by our bfloat16 peak and left the Xeon
    6980P (an AMX figure only) blank."""
    from overhead_tui.machine.reference import peak_of, reference_machines

    found = reference_machines()
    machines = {m.name: m for m in (found[0] if isinstance(found, tuple) else found)}
    xeon, a100 = machines["Intel Xeon 6980P"], machines["NVIDIA A100 80GB PCIe"]
    assert peak_of(xeon, "bfloat16") == xeon.fp16_amx_gflops
    assert peak_of(a100, "bfloat16") == a100.fp16_tensor_gflops != a100.fp32_gflops
    assert peak_of(machines["AMD EPYC 9965"], "bfloat16") is None  # no 16-bit figure given
    assert peak_of(xeon, "int8") is None
