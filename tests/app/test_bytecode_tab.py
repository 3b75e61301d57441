"""The Bytecode tab says at which n its rows were counted, before the rows, in lines that do not
wrap in an 80-column terminal."""

from __future__ import annotations

import pytest
from textual.widgets import Label, Static, TabbedContent

from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.widgets.tabs import BytecodeTab
from tests.conftest import fixture_summary, rendered_text


@pytest.mark.parametrize("width", [80, 120])
async def test_rows_counted_at_20_are_labelled_so_before_the_table(width):
    summary = fixture_summary()
    hoisted = summary.scenario("python_hoisted")
    assert (hoisted.bytecode_n, hoisted.n) == (20, 128)
    app = OverheadApp(summary=summary)
    async with app.run_test(size=(width, 30)) as pilot:
        await pilot.press("down", "enter")
        app.screen.query_one(TabbedContent).active = "tab-bytecodetab"
        await pilot.pause()
        tab = app.screen.query_one(BytecodeTab)
        note, table = list(tab.query(Static))  # in the order they are laid out
        assert isinstance(note, Label)
        assert note.region.y < table.region.y  # the explanation is read first
        assert note.size.height == len(str(note.content).splitlines()) == 3  # nothing wraps
        lines = str(note.content).splitlines()
        assert lines[0] == "counted at n = 20 (per FMA at that n); the rung was timed at n = 128"
        assert "1/n per FMA: 0.05 here, 0.00781 at n = 128" in lines[1]
        rows = rendered_text(table.content)
    header = rows.splitlines()[:2]
    assert "per FMA" in header[0] and "at n = 20" in header[1]  # the rows' own n
    assert "0.0525" in rows  # the loop header, as counted at n = 20
    assert table.content.caption is None  # no footnote under the table any more
