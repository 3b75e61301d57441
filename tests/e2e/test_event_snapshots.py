"""The runner hands out copies: what an event carried is never rewritten by a later derive
pass on the runner's thread, while the app's thread may be drawing it."""

from __future__ import annotations

import json

from overhead_tui.engine.events import RunFinished, RunStarted, ScenarioFinished
from overhead_tui.engine.runner import Runner
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.summary.records import Settings


def test_a_derive_pass_after_an_event_does_not_change_what_the_event_carried(tmp_path):
    settings = Settings(size=16, repeats=2, min_sample_s=0.001, probes=False)
    specs = select(discover(), ["numpy_matmul", "numpy_row_vectorized", "python_naive"])
    carried = []  # (event, its summary as JSON when it was handed out)
    for event in Runner(specs, settings, tmp_path / "run").events():
        if isinstance(event, RunStarted | ScenarioFinished | RunFinished):
            assert event.summary is not None
            carried.append((event, json.dumps(event.summary.to_json(), sort_keys=True)))
    finished = [e for e, _ in carried if isinstance(e, ScenarioFinished)]
    assert {e.result.name for e in finished} == {s.name for s in specs}
    for event, then in carried:  # later derive passes ran after every one of them
        assert json.dumps(event.summary.to_json(), sort_keys=True) == then
    first, last = finished[0], carried[-1][0]
    assert first.result is first.summary.scenario("numpy_matmul")  # the copy's own record
    # the later rungs moved the run's own figures (the waterfall grew), not the first copy's
    assert len(last.summary.waterfall) > len(first.summary.waterfall)
    assert first.summary is not last.summary
