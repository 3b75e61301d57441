"""Why a run's probes may not price a rung now (analysis.staleness)."""

from __future__ import annotations

from datetime import datetime

from overhead_tui.analysis.staleness import STALE_AGE_S, probe_doubt
from overhead_tui.summary.probes import ProbeResult

CREATED = "2026-12-07T10:00:00+00:00"
START = datetime.fromisoformat(CREATED).timestamp()


def _probe(age_s=60.0, load=0.02):
    return ProbeResult("dispatch", value=10.0, measured_at=START - age_s, other_cpu_fraction=load)


def test_fresh_probes_at_the_same_load_and_speed_raise_no_doubt():
    assert probe_doubt([_probe()], CREATED, 1.05, 0.03) == ""


def test_probes_older_than_an_hour_are_named_with_their_age():
    note = probe_doubt([_probe(), _probe(age_s=5 * 3600)], CREATED, 1.0, 0.03)
    assert "measured 5 h before" in note and "probes --refresh" in note
    assert probe_doubt([_probe(age_s=STALE_AGE_S - 1)], CREATED, 1.0, 0.03) == ""


def test_a_load_on_one_side_only_is_named():
    note = probe_doubt([_probe(load=0.45)], CREATED, 1.0, 0.02)
    assert "45% of the CPUs during the probes and 2% during this rung" in note
    assert probe_doubt([_probe(load=0.45)], CREATED, 1.0, 0.40) == ""  # busy both times


def test_a_reference_loop_far_from_the_probe_s_speed_is_named():
    assert "1.60×" in probe_doubt([_probe()], CREATED, 1.6, 0.02)
    assert "0.70×" in probe_doubt([_probe()], CREATED, 0.7, 0.02)


def test_files_without_the_times_raise_no_doubt():
    old = ProbeResult("dispatch", value=10.0)  # absent measured_at and load
    assert probe_doubt([old], "", None, None) == ""


def test_a_loop_mix_fit_too_poor_to_price_the_bytecode_is_named():
    note = probe_doubt([_probe()], CREATED, 1.0, 0.02, mix_error=0.29)
    assert "loop_mix fit missed one of its loops by 29%" in note
    assert probe_doubt([_probe()], CREATED, 1.0, 0.02, mix_error=0.08) == ""
