"""The Compare screen driven with Textual's Pilot."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from overhead_tui.analysis.compare import compare_runs
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.compare import CompareScreen, compare_app
from overhead_tui.tui.screens.ladder import LadderScreen
from tests.conftest import fixture_summary
from tests.unit.test_compare import SWEEP_SUMMARY, changed_run, recorded_run


def comparison():
    return compare_runs(recorded_run(), changed_run(), labels=("monday.json", "tuesday.json"))


async def test_rows_verdicts_detail_and_escape_back():
    app = OverheadApp(summary=recorded_run(), autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(CompareScreen(comparison()))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == 20
        assert str(table.get_cell("python_naive", "ratio")) == "1.25×"
        assert str(table.get_cell("python_naive", "verdict")) == "slower"
        assert str(table.get_cell("python_hoisted", "verdict")) == "faster"
        assert str(table.get_cell("c_tiled", "median_b")) == "invalid"
        assert str(table.get_cell("c_tiled", "ratio")) == "—"
        detail = screen.query_one("#detail", Static)
        assert str(detail.render()).startswith("python_naive: n 128 vs 128, 7 vs 7 samples")
        await pilot.press("down")
        assert str(detail.render()).startswith("python_hoisted:")
        facts = str(screen.query_one("#facts Static", Static).render())
        assert "machine.python.version: 3.11.7 (A) → 3.12.8 (B)" in facts
        assert "only in A: numpy_einsum" in facts
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)


async def test_compare_app_opens_on_the_compare_screen_over_run_a():
    app = compare_app(comparison(), recorded_run())
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        assert "A: monday.json" in str(app.screen.query_one("#legend", Static).render())
        for width, height, small in ((50, 12, True), (80, 24, False)):
            await pilot.resize_terminal(width, height)
            await pilot.pause()
            assert app.screen.query_one("#too-small").display == small
            assert app.screen.query_one(DataTable).display == (not small)
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)
        assert app.ladder.summary.scenario("numpy_einsum") is not None  # run A's ladder


async def test_a_sweep_is_named_on_the_screen():
    sweep = fixture_summary(SWEEP_SUMMARY)
    sweep.machine.numba_version = None  # as when no numba rung ran
    app = OverheadApp(summary=recorded_run(), autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(CompareScreen(compare_runs(recorded_run(), sweep)))
        await pilot.pause()
        legend = str(app.screen.query_one("#legend", Static).render())
        assert "B is a size sweep: each rung at its largest measured n" in legend
        facts = str(app.screen.query_one("#facts Static", Static).render())
        assert "sweep.budget_s: not a sweep (A) → 60 (B)" in facts
        assert "recorded only in A: machine.numba_version = 0.68.1" in facts
