from __future__ import annotations

import pytest

from overhead_tui.engine.stats import describe, stability_warnings
from overhead_tui.kit.timing import calibrate, calibrate_loops, time_calls


def test_describe_known_values():
    stats = describe([1.0, 2.0, 3.0, 4.0, 5.0])
    assert stats.min_s == 1.0
    assert stats.median_s == 3.0
    assert stats.iqr_s == pytest.approx(2.0)  # inclusive quartiles 2 and 4
    assert stats.stdev_s == pytest.approx(1.5811, rel=1e-4)
    assert stats.cv == pytest.approx(1.5811 / 3, rel=1e-4)


def test_describe_single_sample_and_empty():
    stats = describe([0.5])
    assert (stats.median_s, stats.iqr_s, stats.stdev_s, stats.cv) == (0.5, 0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="no samples"):
        describe([])


def test_stable_samples_have_no_warnings():
    stats = describe([0.100, 0.101, 0.099, 0.100])
    assert stability_warnings(stats, loops=1) == []


def test_unstable_samples_are_flagged_like_pyperf():
    stats = describe([0.1, 0.1, 0.1, 0.1, 0.35])
    warnings = stability_warnings(stats, loops=1)
    assert any("CV" in w for w in warnings)
    assert any("max is" in w for w in warnings)


def test_short_samples_and_steal_are_flagged():
    stats = describe([1e-5, 1e-5])
    assert any("too short" in w for w in stability_warnings(stats, loops=10))
    assert stability_warnings(stats, loops=1000) == []
    assert any("steal" in w for w in stability_warnings(stats, 1000, steal_fraction=0.2))


def test_a_sample_just_under_a_millisecond_does_not_read_as_one():
    # 0.9996 ms used to print "samples too short (1.00 ms < 1 ms)"
    just_under = describe([0.9996e-4, 0.9996e-4])
    assert "samples too short (0.99 ms < 1 ms)" in stability_warnings(just_under, loops=10)
    well_under = describe([0.823e-4, 0.823e-4])
    assert "samples too short (0.82 ms < 1 ms)" in stability_warnings(well_under, loops=10)


@pytest.mark.parametrize(
    ("call_s", "min_s", "loops"),
    [(0.2, 0.05, 1), (0.01, 0.05, 5), (0.003, 0.05, 17), (0.0, 0.05, 1_000_000)],
)
def test_calibrate_loops(call_s, min_s, loops):
    assert calibrate_loops(call_s, min_s) == loops


def test_time_calls_uses_the_injected_clock():
    ticks = iter([1_000, 5_001_000])  # 5 ms for 4 calls
    calls = []
    per_call, result = time_calls(
        lambda x: calls.append(x) or x * 2, (21,), 4, timer=lambda: next(ticks)
    )
    assert per_call == pytest.approx(1.25e-3)
    assert result == 42
    assert len(calls) == 4


def test_calibrate_grows_loops_until_a_sample_is_long_enough():
    # a fake kernel whose first call is slow (10 ms) and steady calls take 1 ms
    now = [0]

    def timer():
        return now[0]

    def kernel():
        now[0] += 1_000_000

    loops, warmups = calibrate(kernel, (), first_s=0.010, min_sample_s=0.05, timer=timer)
    assert loops * 1e-3 >= 0.05  # 5 loops estimated from the slow call were not enough
    assert warmups[0] == pytest.approx(1e-3) and len(warmups) >= 2
