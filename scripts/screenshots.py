"""Regenerate the SVG screenshots in screenshots/ from the recorded summary (not a live run).

Usage: python scripts/screenshots.py  (or `make screenshots`)
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from overhead_tui.model import RunSummary
from overhead_tui.tui.app import OverheadApp

ROOT = Path(__file__).resolve().parent.parent
RECORDED = ROOT / "tests" / "fixtures" / "recorded_summary.json"
OUT = ROOT / "screenshots"

SHOTS: list[tuple[str, tuple[int, int], list[str]]] = [
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
]
"""(file name, terminal size, keys pressed before the screenshot)."""


async def shoot(name: str, size: tuple[int, int], keys: list[str]) -> Path:
    summary = RunSummary.load(RECORDED)
    summary.run_dir = "/tmp/overhead-tui/runs/recorded"
    app = OverheadApp(summary=summary)
    async with app.run_test(size=size) as pilot:
        await pilot.press(*keys)
        await pilot.pause(0.2)
        path = app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
    return Path(path)


async def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, size, keys in SHOTS:
        print(await shoot(name, size, keys))


if __name__ == "__main__":
    asyncio.run(main())
