"""The ``cpp`` set's waterfall follows the C++ a programmer writes, one change a step, each
credited from the layers' measured change: containers of containers → flat storage (and native
flags) → the same loop through a SIMD library → Eigen's kernel → Eigen with native flags.

Recorded: ``overhead-tui run --set cpp`` on a 2-vCPU AMD EPYC Zen 3 (AVX2), 2026-12-07."""

from __future__ import annotations

from pathlib import Path

from overhead_tui.analysis.waterfall import UNEXPLAINED, waterfall
from overhead_tui.plugins.scenarios import discover
from tests.conftest import fixture_summary

CPP_SET = Path(__file__).parents[1] / "fixtures" / "cpp_set.summary.json"
PROGRESSION = (
    "cpp_vector_naive",
    "cpp_flat_native",
    "cpp_xsimd_ikj",
    "cpp_eigen",
    "cpp_eigen_native",
)


def test_the_cpp_rungs_are_declared_in_the_order_a_programmer_takes():
    """Rung numbers put each C++ rung after the one it changes: ``cpp_flat_native`` had shared
    ``cpp_vector_naive``'s rung, and a tie is ordered by name (flat before vector)."""
    rungs = {s.name: s.rung for s in discover()}
    order = [rungs[name] for name in PROGRESSION]
    assert order == sorted(order) and len(set(order)) == len(order), order


def test_each_cpp_step_is_credited_from_its_measured_change():
    summary = fixture_summary(CPP_SET)
    steps = waterfall(summary)  # recomputed from the recorded rungs, not read back
    names = [steps[0].from_, *(s.to for s in steps)]
    cpp = [n for n in names if n.startswith("cpp_")]
    assert tuple(cpp) == PROGRESSION  # the C++ rungs in the programmer's order
    pairs = {(s.from_, s.to): s for s in steps}
    # each C++ change that is its own step: measured, and the parts add up to the saving
    for before, after in [
        ("cpp_vector_naive", "cpp_flat_native"),
        ("cpp_xsimd_ikj", "cpp_eigen"),
        ("cpp_eigen", "cpp_eigen_native"),
    ]:
        step = pairs[(before, after)]
        assert step.split == "by measured change", (before, after)
        assert step.changes, (before, after)
        credited = sum(step.layers.values()) + step.noise_s_per_flop
        assert abs(credited - step.saved_s_per_flop) <= 1e-6 * abs(step.saved_s_per_flop)
    # default flags → native flags: Eigen's kernel on SSE2 → AVX2 + FMA, credited to SIMD
    flags = pairs[("cpp_eigen", "cpp_eigen_native")]
    assert flags.speedup > 1 and flags.layers.get("simd_compute", 0.0) > 0
    assert UNEXPLAINED not in flags.declared
    # flat storage declares the container access it removes; the step says so beside credits
    assert pairs[("cpp_vector_naive", "cpp_flat_native")].declared == ["container_access"]
