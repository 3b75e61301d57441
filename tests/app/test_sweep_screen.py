"""The Sweep screen driven with Textual's Pilot on a recorded sweep."""

from __future__ import annotations

import contextlib
import math

from textual.widgets import Static

from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.sweep import MAX_X_TICKS, SweepScreen, size_ticks
from overhead_tui.tui.widgets.loglog_plot import LogLogPlot
from tests.conftest import RECORDED_SUMMARY, SWEEP_SUMMARY, fixture_summary, rendered_text


async def test_plot_and_table_show_every_point_and_escape_goes_back():
    summary = fixture_summary(SWEEP_SUMMARY)
    points = summary.sweep.to_json()["points"]
    app = OverheadApp(summary=summary)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()  # a summary with a sweep opens on the Sweep screen
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        figure = screen.figure()
        legend = screen.legend()
        # one line per scenario, each with its own character (readable without colour);
        # the table under the plot is the legend: that character, then the name
        assert list(legend) == summary.settings.scenarios
        assert len({marker for marker, _ in legend.values()}) == len(legend)
        assert [s.marker for s in figure.series] == [m for m, _ in legend.values()]
        assert all(s.line for s in figure.series)
        for series, name in zip(figure.series, legend, strict=True):
            ok = [p for p in points if p["scenario"] == name and p["status"] == "ok"]
            assert list(series.x) == [p["n"] for p in ok]
            assert list(series.y) == [p["gflops"] for p in ok]
        plot = screen.query_one(LogLogPlot)
        assert plot.size.height >= 10
        table = rendered_text(screen.query_one("#table", Static).content)
        for scenario, (marker, _) in legend.items():
            assert f"{marker} {scenario}" in table
        notes = rendered_text(screen.query_one("#notes", Static).content)
        assert "stopped early: python_naive (budget)" in notes
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)


@contextlib.asynccontextmanager
async def _sweep_screen_of(path, size):
    """The app showing a Sweep screen of the summary at ``path`` in a terminal of ``size``."""
    summary = fixture_summary(path)
    app = OverheadApp(summary=summary)
    async with app.run_test(size=size) as pilot:
        await app.push_screen(SweepScreen(summary))
        await pilot.pause()
        yield app


async def test_a_run_without_a_sweep_says_how_to_get_one():
    async with _sweep_screen_of(RECORDED_SUMMARY, (100, 30)) as app:
        assert not app.screen.query(LogLogPlot)
        assert "overhead-tui sweep" in rendered_text(app.screen.query_one("#empty", Static).content)


async def test_too_small_terminal_hides_the_plot():
    async with _sweep_screen_of(SWEEP_SUMMARY, (50, 12)) as app:
        assert app.screen.query_one("#too-small").display
        assert not app.screen.query_one(LogLogPlot).display or not (
            app.screen.query_one(LogLogPlot).region.area
        )


def test_x_ticks_sit_at_the_swept_sizes():
    positions, labels, (low, high) = size_ticks([8, 16, 1024])
    assert labels == ["8", "16", "1024"]
    assert positions == [math.log10(8), math.log10(16), math.log10(1024)]
    assert low < math.log10(8) and high > math.log10(1024)
    many = size_ticks([2**k for k in range(3, 25)])
    assert many is not None and len(many[1]) <= MAX_X_TICKS
    assert size_ticks([8]) is None
