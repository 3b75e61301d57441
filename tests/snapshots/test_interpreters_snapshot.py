"""SVG snapshots of the Interpreters screen from a recorded combined summary
(pytest-textual-snapshot).

``tests/fixtures/interpreters_breakdowns.json`` is a real ``overhead-tui interpreters --python
3.12 --python 3.13`` at n = 8 with probes (so every Python-level rung has its breakdown) on
the shared 2-core machine.  Regenerate after an intended change with
``pytest tests/snapshots --snapshot-update`` and look at the SVGs before committing them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from overhead_tui.commands.common import baseline_summary
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.tui.app import OverheadApp
from tests.conftest import FIXTURES

INTERPRETERS_BREAKDOWNS = FIXTURES / "interpreters_breakdowns.json"

pytestmark = pytest.mark.snapshot


def interpreters_app() -> OverheadApp:
    """The app as ``interpreters --app`` opens it, on the recorded combined summary (its run
    directories are not read: they are gone)."""
    combined = InterpretersSummary.load(INTERPRETERS_BREAKDOWNS)
    combined.interpreters[:] = [
        replace(entry, run_dir=f"/tmp/overhead-tui/runs/interpreters-{i}")
        for i, entry in enumerate(combined.interpreters)
    ]
    return OverheadApp(summary=baseline_summary(combined), interpreters=combined, autorun=False)


@pytest.mark.parametrize(
    ("press", "size"),
    [([], (120, 40)), (["down", "]"], (120, 40)), ([], (80, 24)), ([], (50, 12))],
    ids=["python_naive-120x40", "python_hoisted-b-3.11-120x40", "80x24", "too-small"],
)
def test_interpreters_screen(snap_compare, press, size):
    assert snap_compare(interpreters_app(), press=press, terminal_size=size)
