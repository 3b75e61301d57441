"""Two clocks, each named where it is shown: the facts table's scalar clock and the clock
under FMA load that every theoretical peak and roof uses (three unnamed clocks read as three
measurements of one)."""

from __future__ import annotations

from dataclasses import replace

from overhead_tui.analysis.roofline import ceilings
from overhead_tui.present.format import fact_check_rows
from overhead_tui.summary.limits import FactCheck
from tests.conftest import RECORDED_SUMMARY_V3, fixture_summary


def test_the_facts_table_names_its_clock_scalar():
    check = FactCheck("clock", "GHz", "imul", 3.66, "add+xor", 3.65, True, 3.66, "agree")
    (row,) = fact_check_rows([check])
    assert row[0] == "scalar clock" and row[1] == "3.66 GHz"


def test_the_one_core_roof_names_the_clock_it_is_computed_at():
    summary = fixture_summary(RECORDED_SUMMARY_V3)
    peak = summary.machine.peak_gflops["float64"]
    summary.machine.peak_gflops["float64"] = replace(
        peak, one_core_theoretical=58.1, flop_per_cycle_per_core=16
    )
    summary.machine.clock_ghz["vector"] = 3.63
    summary.machine.clock_ghz["measured"] = 3.66
    roof = next(c for c in ceilings(summary) if c.label == "one core, theoretical")
    assert "× 3.63 GHz (clock under FMA load)" in roof.measured_by
    summary.machine.clock_ghz["vector"] = None
    roof = next(c for c in ceilings(summary) if c.label == "one core, theoretical")
    assert "× 3.66 GHz (scalar clock)" in roof.measured_by
