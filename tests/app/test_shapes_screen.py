"""The Shapes screen driven with Textual's Pilot on a recorded batch sweep."""

from __future__ import annotations

from textual.widgets import Static

from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.ladder import LadderScreen
from overhead_tui.tui.screens.shapes import ROOF_MARKER, SLOPE_MARKER, ShapesScreen
from overhead_tui.tui.widgets.loglog_plot import LogLogPlot
from tests.conftest import RECORDED_SUMMARY, SHAPES_SUMMARY, fixture_summary, rendered_text


async def test_curves_roofs_crossing_and_table_from_a_recorded_sweep():
    summary = fixture_summary(SHAPES_SUMMARY)
    record = summary.shapes
    app = OverheadApp(summary=summary)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()  # a summary with shapes opens on the Shapes screen
        screen = app.screen
        assert isinstance(screen, ShapesScreen)
        figure = screen.figure()
        legend = screen.legend()
        assert list(legend) == ["numba_ikj", "numpy_matmul_1thread"]  # python_naive: skipped
        curves = [s for s in figure.series if s.marker not in (SLOPE_MARKER, ROOF_MARKER)]
        for series, name in zip(curves, legend, strict=True):
            assert list(zip(series.x, series.y, strict=True)) == record.curve(name)
        # both rungs run on one core: one bandwidth slope and one compute roof
        slopes = [s for s in figure.series if s.marker == SLOPE_MARKER]
        roofs = [s for s in figure.series if s.marker == ROOF_MARKER]
        assert len(slopes) == len(roofs) == 1
        assert set(roofs[0].y) == {record.roofs["numpy_matmul_1thread"].peak_gflops}
        assert slopes[0].y[0] < slopes[0].y[-1]  # the slope rises with m
        # the measured crossing is marked on its curve
        crossed = {n: c.measured_m for n, c in record.crossing.items() if c.measured_m}
        assert crossed and all(
            any(f"m={m}" in label.text for label in figure.labels) for m in crossed.values()
        )
        assert screen.query_one(LogLogPlot).size.height >= 10
        table = rendered_text(screen.query_one("#table", Static).content)
        assert "numpy_matmul_1thread" in table and "compute" in table and "memory" in table
        crossings = rendered_text(screen.query_one("#crossings", Static).content)
        assert "predicted m" in crossings and "skipped" in crossings
        await pilot.press("escape")
        assert isinstance(app.screen, LadderScreen)


async def test_a_run_without_shapes_says_how_to_get_one():
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await app.push_screen(ShapesScreen(app.saved))
        await pilot.pause()
        empty = app.screen.query_one("#empty", Static)
        assert "overhead-tui shapes" in rendered_text(empty.content)
