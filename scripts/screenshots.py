"""Regenerate the SVG screenshots in screenshots/ from the recorded summary (not a live run).

Usage: python scripts/screenshots.py  (or `make screenshots`)

The summaries shown are the test suite's fixtures, by the paths ``tests/conftest.py`` names.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from overhead_tui.summary.records import RunSummary
from overhead_tui.tui.app import OverheadApp
from tests.conftest import (
    FIXTURES,
    RECORDED_SUMMARY,
    RECORDED_SUMMARY_V3,
    ROOT,
    SHAPES_SUMMARY,
    SWEEP_SUMMARY,
)

OUT = ROOT / "screenshots"

SHOTS: list[
    tuple[str, tuple[int, int], list[str]] | tuple[str, tuple[int, int], list[str], Path]
] = [
    ("ladder-120x40", (120, 40), []),
    ("ladder-80x24", (80, 24), []),
    ("ladder-160x48", (160, 48), []),
    ("scenario-timings", (120, 40), ["enter"]),
    ("scenario-breakdown", (120, 40), ["enter", "right"]),
    ("scenario-bytecode", (120, 40), ["down", "enter", "right", "right"]),
    ("scenario-source", (120, 40), ["down", "down", "enter", "left"]),
    ("waterfall", (120, 40), ["w"]),
    ("scenario-native", (120, 40), ["down", "enter", "right", "right", "right"]),
    ("scenario-stacks", (120, 40), ["down", "enter", "right", "right", "right", "right"]),
    ("scenario-lines", (120, 40), ["down", "enter", "right", "right", "right", "right", "right"]),
    ("profilers", (100, 30), ["c"]),
    ("settings", (100, 30), ["o"]),
    ("export", (100, 30), ["e"]),
    ("help", (100, 32), ["question_mark"]),
    ("too-small", (50, 12), []),
    ("roofline", (120, 40), ["l"], RECORDED_SUMMARY_V3),
    ("machines", (110, 44), ["m"], RECORDED_SUMMARY_V3),
    ("sweep", (120, 40), [], SWEEP_SUMMARY),
    ("shapes", (120, 40), [], SHAPES_SUMMARY),
    ("roofline-trajectory", (120, 40), ["l"], SHAPES_SUMMARY),
]
"""(file name, terminal size, keys pressed before the screenshot[, summary shown])."""


async def shoot(
    name: str, size: tuple[int, int], keys: list[str], source: Path = RECORDED_SUMMARY
) -> Path:
    summary = RunSummary.load(source)
    summary.run_dir = "/tmp/overhead-tui/runs/recorded"
    app = OverheadApp(summary=summary)
    async with app.run_test(size=size) as pilot:
        await pilot.press(*keys)
        await pilot.pause(0.2)
        path = app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
    return Path(path)


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    os.environ["OVERHEAD_TUI_REFERENCE"] = "/dev/null"  # shipped only
    for name, size, keys, *source in SHOTS:
        print(await shoot(name, size, keys, *source))
    print(await shoot_compare())
    print(await shoot_interpreters())


async def shoot_compare() -> Path:
    """The Compare screen: the recorded v2 run against the recorded v3 run."""
    from overhead_tui.analysis.compare import compare_runs
    from overhead_tui.tui.screens.compare import compare_app

    a, b = RunSummary.load(RECORDED_SUMMARY), RunSummary.load(RECORDED_SUMMARY_V3)
    app = compare_app(compare_runs(a, b), a)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        path = app.save_screenshot(filename="compare.svg", path=str(OUT))
    return Path(path)


async def shoot_interpreters() -> Path:
    """The Interpreters screen from a recorded 3.11 / 3.12 / 3.13 run."""
    from overhead_tui.commands.interpreters import baseline_summary
    from overhead_tui.summary.interpreters import InterpretersSummary

    combined = InterpretersSummary.load(FIXTURES / "interpreters_breakdowns.json")
    app = OverheadApp(summary=baseline_summary(combined), interpreters=combined)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.2)
        path = app.save_screenshot(filename="interpreters.svg", path=str(OUT))
    return Path(path)


if __name__ == "__main__":
    asyncio.run(main())
