"""SVG snapshots of the Compare screen (pytest-textual-snapshot), run B against the recorded run.

The screen is shown in a bare host app, so its footer holds only the screen's own keys: the
snapshots do not change when the main app gains a binding (``compare --app`` itself is tested
with Pilot in ``tests/app/test_compare_screen.py``).  Regenerate after an intended change with
``pytest tests/snapshots/test_compare_snapshot.py --snapshot-update`` and look at the SVGs in
``__snapshots__/test_compare_snapshot/`` before committing them.
"""

from __future__ import annotations

import pytest
from textual.app import App

from overhead_tui.analysis.compare import compare_runs
from overhead_tui.tui.screens.compare import CompareScreen
from tests.unit.test_compare import changed_run, recorded_run

pytestmark = pytest.mark.snapshot


class CompareHost(App[None]):
    """Shows one Compare screen of the recorded run against a changed copy of it."""

    TITLE = "overhead-tui"

    def on_mount(self) -> None:
        labels = ("runs/monday/summary.json", "runs/tuesday/summary.json")
        self.push_screen(CompareScreen(compare_runs(recorded_run(), changed_run(), labels=labels)))


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_compare_screen(snap_compare, size):
    assert snap_compare(CompareHost(), terminal_size=size)


def test_compare_screen_on_an_invalid_rung(snap_compare):
    presses = ["down"] * 12  # c_tiled: invalid in B
    assert snap_compare(CompareHost(), press=presses, terminal_size=(100, 30))


def test_compare_screen_too_small(snap_compare):
    assert snap_compare(CompareHost(), terminal_size=(50, 12))
