"""SVG snapshots of the Sweep screen from a recorded sweep (pytest-textual-snapshot).

``tests/fixtures/sweep_summary.json`` is a real ``overhead-tui sweep`` (default scenarios and
sizes) on the reference machine.  Regenerate after an intended change with
``pytest tests/snapshots --snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

import pytest

from overhead_tui.summary.records import RunSummary
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.sweep import SweepScreen
from tests.conftest import SWEEP_SUMMARY, fixture_summary

pytestmark = pytest.mark.snapshot


def _summary() -> RunSummary:
    summary = fixture_summary(SWEEP_SUMMARY)
    summary.run_dir = "/tmp/overhead-tui/runs/sweep"
    return summary


@pytest.mark.parametrize(
    "size", [(120, 40), (80, 24), (50, 12)], ids=["120x40", "80x24", "too-small"]
)
def test_sweep_screen(snap_compare, size):
    summary = _summary()

    async def show(pilot):
        await pilot.app.push_screen(SweepScreen(summary))

    assert snap_compare(OverheadApp(summary=summary), run_before=show, terminal_size=size)
