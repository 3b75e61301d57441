"""The published ladder's data against its own source numbers, and the side-by-side mapping."""

from __future__ import annotations

import pytest

from overhead_tui.analysis.paper import compare, load_table
from overhead_tui.plugins.scenarios import discover
from tests.conftest import RECORDED_SUMMARY, fixture_summary


def test_table_is_consistent_with_its_own_source_numbers():
    table = load_table()
    flops = 2 * table["n"] ** 3
    rows = table["rows"]
    assert [r["version"] for r in rows] == list(range(1, 8))
    first = rows[0]["time_s"]
    for previous, row in zip([None, *rows], rows, strict=False):
        # GFLOP/s = 2·n³ / time (times are printed rounded: 0.41 s for 0.4068 s, hence 1 %)
        assert flops / row["time_s"] / 1e9 == pytest.approx(row["gflops"], rel=0.01, abs=5e-4)
        # speedups are printed as whole numbers (11 for 10.77): half a unit, or 1 %
        assert first / row["time_s"] == pytest.approx(row["absolute_speedup"], rel=0.01, abs=0.5)
        assert row["gflops"] / table["peak_gflops"] == pytest.approx(
            row["fraction_of_peak"], rel=0.02, abs=1e-4
        )
        if previous is not None:
            assert previous["time_s"] / row["time_s"] == pytest.approx(
                row["relative_speedup"], rel=0.03
            )
    # 18 cores x 16 float64 FLOP/cycle (2 AVX2 FMA units x 4 lanes x 2) x 2.9 GHz
    assert table["peak_gflops"] == pytest.approx(18 * 16 * 2.9, rel=0.001)


def test_every_published_row_maps_to_a_rung_of_ours():
    names = {s.name for s in discover()}
    assert {r["our_rung"] for r in load_table()["rows"]} <= names


def test_side_by_side_uses_speedup_per_flop():
    summary = fixture_summary(RECORDED_SUMMARY)
    rows = {r.version: r for r in compare(summary)}
    assert rows[1].our_speedup == pytest.approx(1.0)
    naive, numba = summary.scenario("python_naive"), summary.scenario("numba_naive")
    expected = (naive.median_s / naive.flops) / (numba.median_s / numba.flops)
    assert rows[2].our_speedup == pytest.approx(expected)
