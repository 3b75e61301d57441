"""The ladder's footer names the rungs flagged ``!`` by cause: unstable timing or a busy
machine (it called every note 'unstable', CV < 1 % included)."""

from __future__ import annotations

from overhead_tui.engine.stats import SampleStats, stability_warnings, unstable_timing
from overhead_tui.present.live import doubt_note
from overhead_tui.summary.records import ScenarioResult
from tests.conftest import scenario_result


def _stats(cv: float) -> SampleStats:
    return SampleStats(1.0, 1.0, 0.0, cv, 1.0, 1.0, cv)


def _result(name: str, warnings: list[str], status: str = "ok") -> ScenarioResult:
    return scenario_result(name, n=8, status=status, warnings=warnings)


def test_each_warning_stability_warnings_makes_is_classified_by_what_it_doubts():
    unstable = stability_warnings(_stats(0.3), loops=1)
    assert unstable and all(map(unstable_timing, unstable))
    short = stability_warnings(SampleStats(1e-6, 1e-6, 0, 0, 1e-6, 1e-6, 0.0), loops=10)
    assert short and short[0].startswith("samples too short") and unstable_timing(short[0])
    busy = stability_warnings(
        SampleStats(0.01, 0.01, 0, 0, 0.01, 0.01, 0.0),
        loops=1000,
        steal_fraction=0.2,
        other_cpu_fraction=0.5,
        observer_fraction=0.1,
        observer="the app",
    )
    assert len(busy) == 3 and not any(map(unstable_timing, busy))


def test_the_footer_separates_unstable_timing_from_a_busy_machine():
    cv = stability_warnings(_stats(0.3), loops=1)
    others = ["other processes used 40% of the CPUs meanwhile"]
    results = [
        _result("a", cv),
        _result("b", others),
        _result("c", [*others, *cv]),  # both: the stronger doubt
        _result("d", []),
        _result("e", others, status="error"),  # a failed rung is counted elsewhere
    ]
    assert doubt_note(results) == "! unstable timing: a, c · ! timed on a busy machine: b"
    many = [_result(f"r{i}", others) for i in range(5)]
    assert doubt_note(many) == "! timed on a busy machine: r0, r1, r2 +2"
    assert doubt_note([_result("d", [])]) == ""
