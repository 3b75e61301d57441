"""The Interpreters screen driven with Textual's Pilot, on a recorded combined summary."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from overhead_tui.analysis.interpreters import breakdown_pair, grid
from overhead_tui.present.interpreters_text import cell_parts, pair_summary
from overhead_tui.tui.screens.interpreters import InterpretersScreen
from overhead_tui.tui.screens.ladder import LadderScreen
from tests.snapshots.test_interpreters_snapshot import interpreters_app


async def test_grid_pair_keys_and_escape_back():
    app = interpreters_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InterpretersScreen)
        combined = screen.combined
        labels = [e.label for e in combined.interpreters]
        assert [label.split()[1][:4] for label in labels] == ["3.11", "3.12", "3.13"]
        table = screen.query_one("#grid", DataTable)
        rows = grid(combined)
        assert table.row_count == len(rows) == 4
        assert len(table.columns) == 4
        # the grid shows exactly the shared derivation's text
        name, cells = rows[0]
        assert name == "python_naive"
        for i, cell in enumerate(cells):
            assert str(table.get_cell(name, f"i{i}")) == "\n".join(cell_parts(cell))
        assert cells[2].change is not None and cells[2].bytecodes_per_fma is not None
        choice = screen.query_one("#choice", Static)
        assert str(choice.render()).startswith(f"python_naive: A = {labels[0]}, B = {labels[2]}")
        changes = str(screen.query_one("#changes", Static).render())
        pair = breakdown_pair(combined, "python_naive", 0, 2)
        assert pair.has_breakdowns
        assert changes.splitlines()[1] == "• " + pair_summary(pair)[0]
        await pilot.press("down")  # python_hoisted
        assert str(choice.render()).startswith("python_hoisted:")
        await pilot.press("[")  # A: 3.11 -> 3.12
        assert screen.a == 1 and f"A = {labels[1]}" in str(choice.render())
        await pilot.press("]")  # B: 3.13 -> 3.11 (skips A)
        assert screen.b == 0 and f"B = {labels[0]}" in str(choice.render())
        await pilot.press("]")  # 3.11 -> 3.13 (3.12 is A)
        assert screen.b == 2
        await pilot.press("down", "down")
        assert str(choice.render()).startswith("numpy_matmul:")
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)
        assert app.ladder.summary.scenario("python_naive") is not None  # the baseline's run
        await pilot.press("i")  # back to it from the ladder
        assert isinstance(app.screen, InterpretersScreen)


async def test_without_a_combined_summary_the_key_says_how_to_get_one():
    from overhead_tui.tui.app import OverheadApp
    from tests.conftest import RECORDED_SUMMARY, fixture_summary

    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY), autorun=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("i")
        await pilot.pause()
        assert isinstance(app.screen, LadderScreen)
