"""What a probe returns (``kit.probing.ProbeMeasurement``): its estimate when not the median,
and the dict that probe files returned before the record, still read the same."""

from __future__ import annotations

from overhead_tui.kit.probing import ProbeMeasurement


def test_the_old_dict_gives_the_same_record_its_value_the_estimate():
    record = ProbeMeasurement.from_dict(
        {"samples": [3, 1, 2], "details": {"value": 1.5, "dispatches_per_trip": 4.0}}
    )
    assert record == ProbeMeasurement([3.0, 1.0, 2.0], {"dispatches_per_trip": 4.0}, 1.5)
    assert record.median == 2.0
    assert ProbeMeasurement.from_dict({"samples": [1.0]}).estimate is None


def test_several_functions_are_timed_round_robin_so_drift_hits_them_alike():
    """``time_many``: after each function's calibration, every round times each function
    once, in order; a drift (here a clock that slows down with every call) then shows in
    every function's rounds alike instead of in whichever was timed last."""
    from overhead_tui.kit.probing import ProbeContext

    calls: list[str] = []
    clock = iter(range(0, 10**12, 10**6))  # 1 ms per reading: calibration ends at once

    def timer() -> int:
        return next(clock)

    def named(name):
        return lambda *args: calls.append(name)

    ctx = ProbeContext(repeats=3, min_sample_s=0.0, timer=timer)
    times = ctx.time_many([named("a"), named("b"), named("c")])
    assert [len(t) for t in times] == [3, 3, 3]
    timed = calls[-9:]  # the three rounds after the calibrations
    assert timed == ["a", "b", "c"] * 3
    pairs = ctx.time_pair(named("x"), named("y"))
    assert len(pairs) == 3 and calls[-6:] == ["x", "y"] * 3


def _steady_then(step_ns):
    """A clock whose every timed call lasts ``step_ns(k)`` ns, k the reading pair's index."""
    state = {"now": 0, "k": 0, "odd": False}

    def timer() -> int:
        if state["odd"]:  # the end of a timing: the call took step_ns(k)
            state["now"] += step_ns(state["k"])
            state["k"] += 1
        state["odd"] = not state["odd"]
        return state["now"]

    return timer


def test_a_timing_whose_samples_agree_stops_after_three_rounds():
    """``settle``: three samples within 1 % of their median end the timing (a compiled
    kernel's samples); samples 10 % apart take every round; without ``settle`` every round."""
    from overhead_tui.kit.probing import SETTLED_ROUNDS, ProbeContext

    steady = ProbeContext(repeats=7, min_sample_s=0.0, timer=_steady_then(lambda k: 10**6),
                          settle=0.01)  # fmt: skip
    assert len(steady.time(lambda: None)) == SETTLED_ROUNDS == 3
    noisy = ProbeContext(repeats=7, min_sample_s=0.0, settle=0.01,
                         timer=_steady_then(lambda k: 10**6 + (k % 2) * 10**5))  # fmt: skip
    assert len(noisy.time(lambda: None)) == 7
    fixed = ProbeContext(repeats=7, min_sample_s=0.0, timer=_steady_then(lambda k: 10**6))
    assert len(fixed.time(lambda: None)) == 7
    # round-robin: one function's noise keeps every function timing
    pair = ProbeContext(repeats=5, min_sample_s=0.0, settle=0.01,
                        timer=_steady_then(lambda k: 10**6 + (k % 4 == 3) * 10**5))  # fmt: skip
    a, b = pair.time_many([lambda: None, lambda: None])
    assert len(a) == len(b) == 5
