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
