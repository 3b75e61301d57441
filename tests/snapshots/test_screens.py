"""SVG snapshots of every screen from a fixed recorded summary (pytest-textual-snapshot).

Regenerate after an intended change with ``pytest tests/snapshots --snapshot-update`` and look
at the SVGs in ``__snapshots__/`` before committing them.  Pinned: textual and
pytest-textual-snapshot versions below; other versions render differently.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from overhead_tui.tui.app import OverheadApp
from tests.conftest import (
    FIXTURES,
    RECORDED_SUMMARY,
    RECORDED_SUMMARY_V3,
    SUMMARY_V1,
    fixture_summary,
)

pytestmark = pytest.mark.snapshot


def _pressed_still(*press):
    """A ``run_before`` that presses ``press``, then stops every text cursor blinking: a
    loaded machine takes the screenshot more than the blink's 0.5 s after the focus, in the
    other half of the blink (a dialog's, the machines screen's tile field in a fresh clone's
    suite, 2026-12-07)."""

    async def run_before(pilot):
        await pilot.press(*press)
        await pilot.pause()
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False

    return run_before


def _app():
    summary = fixture_summary(RECORDED_SUMMARY)
    summary.run_dir = "/tmp/overhead-tui/runs/recorded"
    return OverheadApp(summary=summary)


@pytest.mark.parametrize(
    "size", [(80, 24), (120, 40), (160, 48)], ids=["80x24", "120x40", "160x48"]
)
def test_ladder(snap_compare, size):
    assert snap_compare(_app(), terminal_size=size)


@pytest.mark.parametrize(
    "size", [(80, 24), (120, 40), (160, 45)], ids=["80x24", "120x40", "160x45"]
)
def test_ladder_with_a_lower_precision_rung_beside_float64(snap_compare, size):
    """A real float64 run on a Zen 3 (2026-12-07): numpy_matmul_own_loops at its own float16
    beside the float64 rungs (its dtype in the × dense cell), c_amx_tiles skipped with this
    CPU's reason, and the span from python_naive to the peak on the screen's first lines."""
    summary = fixture_summary(FIXTURES / "lower_precision_beside_float64.summary.json")
    summary.run_dir = "/tmp/overhead-tui/runs/recorded"
    assert snap_compare(OverheadApp(summary=summary), terminal_size=size)


@pytest.mark.parametrize(
    ("press", "size"),
    [
        (["enter"], (120, 40)),
        (["down", "down", "down", "down", "down", "enter"], (80, 24)),
        (["end", "enter", "right", "right", "right"], (100, 30)),
        (["enter", "right"], (120, 40)),
        (["down", "enter", "right", "right"], (100, 30)),
    ],
    ids=[
        "python_naive-timings-120x40",
        "numpy_row_vectorized-80x24",
        "dense-source-100x30",
        "python_naive-breakdown-120x40",
        "python_hoisted-bytecode-100x30",
    ],
)
def test_scenario(snap_compare, press, size):
    assert snap_compare(_app(), press=press, terminal_size=size)


@pytest.mark.parametrize(
    ("press", "size"),
    [(["question_mark"], (100, 32)), (["o"], (100, 30)), (["e"], (80, 24))],
    ids=["help", "settings", "export"],
)
def test_dialogs(snap_compare, press, size):
    assert snap_compare(_app(), run_before=_pressed_still(*press), terminal_size=size)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_waterfall(snap_compare, size):
    assert snap_compare(_app(), press=["w"], terminal_size=size)


def test_version_1_summary_ladder(snap_compare):
    summary = fixture_summary(SUMMARY_V1)
    summary.run_dir = "/tmp/overhead-tui/runs/v1"
    assert snap_compare(OverheadApp(summary=summary), terminal_size=(120, 30))


@pytest.mark.parametrize("tab", [3, 4, 5], ids=["native", "stacks", "lines"])
def test_profile_tabs(snap_compare, tab):
    assert snap_compare(_app(), press=["down", "enter", *["right"] * tab], terminal_size=(120, 40))


def test_capabilities_screen(snap_compare):
    from overhead_tui.profilers.capabilities import Capability
    from overhead_tui.tui.screens.capabilities import CapabilitiesScreen

    caps = {
        "perf": Capability("perf", True, "6.1.187", path="/usr/bin/perf"),
        "pyspy": Capability(
            "pyspy", False, reason="py-spy is not installed", fix="pip install py-spy"
        ),
    }

    async def show(pilot):
        await pilot.app.push_screen(CapabilitiesScreen(caps))

    assert snap_compare(_app(), run_before=show, terminal_size=(100, 24))


def test_too_small(snap_compare):
    assert snap_compare(_app(), terminal_size=(50, 12))


def _app_v3(monkeypatch):
    monkeypatch.setenv("OVERHEAD_TUI_REFERENCE", "/dev/null")
    summary = fixture_summary(RECORDED_SUMMARY_V3)
    summary.run_dir = "/tmp/overhead-tui/runs/recorded-v3"
    return OverheadApp(summary=summary)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_roofline(snap_compare, monkeypatch, size):
    assert snap_compare(_app_v3(monkeypatch), press=["l"], terminal_size=size)


@pytest.mark.parametrize(
    ("press", "size"),
    [(["m"], (100, 40)), (["m", "tab", "backspace", "backspace", "2", "5", "6"], (100, 48))],
    ids=["tile-64", "tile-256"],
)
def test_machines(snap_compare, monkeypatch, press, size):
    still = _pressed_still(*press)
    assert snap_compare(_app_v3(monkeypatch), run_before=still, terminal_size=size)


def test_watch_screen(snap_compare):
    """Two saves of a watched file, from recorded results (python_naive, then the hoisted
    rung's samples as the next save), placed on the recorded ladder."""
    from pathlib import Path

    from overhead_tui.analysis.watch import version_of
    from overhead_tui.engine.watch import SaveMeasured
    from overhead_tui.present.watch_text import save_lines
    from overhead_tui.tui.screens.watch import WatchScreen

    ladder = fixture_summary(RECORDED_SUMMARY)
    first = version_of(ladder.scenario("python_naive"), "10:00:01")
    second = version_of(ladder.scenario("python_hoisted"), "10:00:09")
    saves = [SaveMeasured("mine", first, None), SaveMeasured("mine", second, first)]

    async def show(pilot):
        screen = WatchScreen(Path("/home/me/kernels/mine.py"), "its default n, float64")
        await pilot.app.push_screen(screen)
        for count, saved in enumerate(saves, start=1):
            history = [s.version for s in saves[:count]]
            screen.show(save_lines(saved, "mine.py", history, ladder))
        screen.waiting()

    assert snap_compare(_app(), run_before=show, terminal_size=(120, 30))


def test_watch_dialog(snap_compare):
    assert snap_compare(_app(), run_before=_pressed_still("W"), terminal_size=(100, 24))
