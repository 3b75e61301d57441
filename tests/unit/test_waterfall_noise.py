"""A waterfall step credits only the changes outside their own noise, and says when the step
itself is within the timing noise of its two rungs."""

from __future__ import annotations

import pytest

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.analysis.attribution import attribute
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.present.waterfall_text import NOISE_HEADER, credit_lines, credits_text
from overhead_tui.summary.breakdown import Breakdown, BreakdownRow
from overhead_tui.summary.records import RunSummary
from tests.conftest import RECORDED_SUMMARY, RECORDED_SUMMARY_V3, fixture_summary, scenario_result


def _rung(name, index, ns_per_fma, iqr_ns, rows):
    """A rung of ``ns_per_fma`` (± ``iqr_ns``/2) with breakdown rows (layer, ns, [low, high])."""
    return scenario_result(
        name,
        rung=index,
        layers=["interpreter_dispatch", "boxing"],
        ns_per_fma=ns_per_fma,
        iqr_ns=iqr_ns,
        breakdown=Breakdown(
            rows=[
                BreakdownRow(layer, 1.0, ns, "ns/event", ns, ns_interval=bounds)
                for layer, ns, bounds in rows
            ]
        ),
    )


def _step_within_noise():
    # 40 ± 2 → 39 ± 2 ns/FMA: the saving [-3, 5] ns/FMA includes 0.  Dispatch 20 [18, 22] →
    # 12 [11, 13]: a change of 8 [5, 11], outside its noise; boxing 10 [9, 11] → 9.5 [8.5,
    # 10.5]: 0.5 [-1.5, 2.5], inside; unexplained 10 → 17.5: -7.5 [-16.5, 1.5], inside.
    before = _rung(
        "a",
        1,
        40.0,
        4.0,
        [("interpreter_dispatch", 20.0, (18.0, 22.0)), ("boxing", 10.0, (9.0, 11.0))],
    )
    after = _rung(
        "b",
        2,
        39.0,
        4.0,
        [("interpreter_dispatch", 12.0, (11.0, 13.0)), ("boxing", 9.5, (8.5, 10.5))],
    )
    return waterfall(RunSummary(scenarios=[before, after]))[0]


def test_a_step_within_noise_credits_only_the_layers_outside_their_own_interval():
    step = _step_within_noise()
    ns = 1e-9 / 2  # s per flop of one ns per FMA
    assert step.within_noise is True
    assert step.saved_interval == pytest.approx((-3 * ns, 5 * ns))
    assert step.layers == pytest.approx({"interpreter_dispatch": 8 * ns})
    assert step.change_intervals["interpreter_dispatch"] == pytest.approx((5 * ns, 11 * ns))
    # boxing's change and the unexplained rest (measured minus model) lie within their noise
    assert step.noise_layers == ["boxing", "other"]
    assert step.change_intervals["boxing"] == pytest.approx((-1.5 * ns, 2.5 * ns))
    assert step.change_intervals["other"] == pytest.approx((-16.5 * ns, 1.5 * ns))
    # nothing dropped: the credits and what is within noise add up to the saving
    assert step.noise_s_per_flop == pytest.approx((0.5 - 7.5) * ns)
    assert sum(step.layers.values()) + step.noise_s_per_flop == pytest.approx(step.saved_s_per_flop)
    assert unc.contains(step.noise_interval, step.noise_s_per_flop)


def test_a_step_within_noise_says_so_before_any_credit():
    step = _step_within_noise()
    text = credits_text(step)
    assert text.startswith("**within noise**: saved 0.5 [-1.5, 2.5]; dispatch 4 [2.5, 5.5]")
    assert text.endswith(
        f"{NOISE_HEADER} boxing [-0.75, 1.25], unexplained [-8.25, 0.75], sum -3.5 [-7, 0]"
    )
    lines = credit_lines(step)
    assert [(x.key, x.within_noise) for x in lines] == [
        ("interpreter_dispatch", False),
        ("boxing", True),
        ("other", True),
        ("not credited", True),
    ]
    assert lines[1].amount == ""  # a change within noise shows no amount, only its interval


def test_the_first_recorded_step_is_within_the_models_noise_not_unexplained():
    """The reported case: python_naive → python_hoisted (1.07×) was credited to subscripts
    (1.73 ns/flop) and unexplained (−0.33) although neither change leaves its noise."""
    summary = fixture_summary(RECORDED_SUMMARY_V3)
    attribute(summary, summary.probes)
    first = summary.waterfall[0]
    assert (first.from_, first.to) == ("python_naive", "python_hoisted")
    assert first.within_noise is False  # the speedup itself is measured …
    assert first.layers == {}  # … but no change of a layer explains it beyond noise
    assert set(first.noise_layers) == {"container_access", "interpreter_dispatch", "other"}
    assert first.noise_s_per_flop == pytest.approx(first.saved_s_per_flop)
    assert first.contradiction == "declared: memory; measured: no modelled layer beyond noise"


@pytest.mark.parametrize("path", [RECORDED_SUMMARY, RECORDED_SUMMARY_V3], ids=["v2", "v3"])
def test_every_credit_lies_outside_its_interval_and_the_steps_add_up(path):
    summary = fixture_summary(path)
    attribute(summary, summary.probes)
    for step in summary.waterfall:
        for layer in step.layers:
            assert not unc.contains(step.change_intervals[layer], 0.0), (step.to, layer)
        for layer in step.noise_layers:
            assert layer not in step.layers
            assert unc.contains(step.change_intervals[layer], 0.0), (step.to, layer)
        total = sum(step.layers.values()) + step.noise_s_per_flop
        assert total == pytest.approx(step.saved_s_per_flop, rel=1e-6, abs=1e-18)
        assert step.within_noise == unc.contains(step.saved_interval, 0.0)
