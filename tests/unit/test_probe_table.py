"""The ``probes`` command's table: a probe this CPU cannot run is said so and is no failure
(the command exits 0 on a machine without AVX-512 or AMX), a probe that failed is one."""

from __future__ import annotations

from overhead_tui.present.probes_text import probe_table
from overhead_tui.summary.probes import ProbeResult


def test_a_probe_this_cpu_cannot_run_is_no_failure_but_a_failed_one_is():
    cannot = ProbeResult(
        "precision_peak",
        unit="GFLOP/s",
        layer="simd_compute",
        error="Unavailable: this CPU has none of AVX-512 BF16/FP16/VNNI or AMX",
    )
    assert cannot.unavailable
    lines, failed = probe_table({"precision_peak": cannot})
    assert failed == 0
    assert any("not on this machine: this CPU has none of AVX-512" in line for line in lines)
    broken = ProbeResult("clock", unit="GHz", layer="clock", error="NameError: name 'x'")
    assert not broken.unavailable
    lines, failed = probe_table({"precision_peak": cannot, "clock": broken})
    assert failed == 1 and any("failed: NameError" in line for line in lines)
    measured = ProbeResult("clock", unit="GHz", layer="clock", value=3.1, samples=[3.1])
    assert not measured.unavailable and probe_table({"clock": measured})[1] == 0


def test_a_machine_probe_broken_in_its_own_code_asks_for_a_report_not_a_fix():
    from overhead_tui.machine.facts import probe_load_warnings

    bug = ProbeResult("clock", error="NameError: name 'Protocol' is not defined")
    (said,) = probe_load_warnings({"clock": bug})
    assert "an error in the probe's own code: please report it" in said
    assert "fix what it says" not in said
    missing = ProbeResult("clock", error="Unavailable: no C compiler (cc); fix: install gcc")
    (said,) = probe_load_warnings({"clock": missing})
    assert "fix what it says" in said
