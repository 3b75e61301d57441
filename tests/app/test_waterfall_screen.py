"""The Waterfall screen says a step within noise before its credits, and names the changes
within noise instead of crediting them."""

from __future__ import annotations

import re

from textual.widgets import Static

from overhead_tui.analysis.attribution import attribute
from overhead_tui.tui.app import OverheadApp
from tests.conftest import fixture_summary, rendered_text


def _summary():
    """The recorded run re-derived, with python_zip_sum's samples spread so wide that the step
    python_hoisted → python_zip_sum is within noise."""
    summary = fixture_summary()
    summary.scenario("python_zip_sum").iqr_s = 0.01
    attribute(summary, summary.probes)
    assert summary.waterfall[1].within_noise and not summary.waterfall[0].within_noise
    return summary


def _rows(text: str, first: str, last: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.lstrip().startswith(first))
    end = next(i for i, x in enumerate(lines) if i > start and x.lstrip().startswith(last))
    return lines[start:end]


async def _steps_text(width: int) -> str:
    app = OverheadApp(summary=_summary())
    async with app.run_test(size=(width, 40)) as pilot:
        await pilot.press("w")
        steps = app.screen.query_one("#steps", Static)
        return rendered_text(steps.content, width - 2)


async def test_a_step_within_noise_says_so_before_its_credits():
    text = await _steps_text(120)
    step = "\n".join(_rows(text, "python_hoisted →", "python_zip_sum →"))
    assert "within noise" in step
    for credit in ("saved 0.208 [-1.01, 1.43]", "dispatch 6.97 [1.15, 12.1]", "boxing 2.51"):
        assert step.index("within noise") < step.index(credit)
    # the unexplained rest lies within its noise: named, not credited
    assert "within noise, not credited:" in step and "unexplained [-16.9, 0.538]" in step
    assert "unexplained -8.88" not in step
    # python_naive → python_hoisted: no layer changed beyond its noise, nothing is credited
    first = "\n".join(_rows(text, "python_naive →", "python_hoisted →"))
    assert "within noise, not credited:" in first and "sum 3.35 [3.15, 3.55]" in first
    assert "unexplained 3.25" not in first


async def test_at_80_columns_the_lead_and_the_noise_are_said_too():
    lines = (await _steps_text(80)).splitlines()
    credit = next(i for i, x in enumerate(lines) if "d  6.97" in x)
    assert "within noise" in lines[credit - 1]  # the line just before the step's first credit
    first = next(i for i, x in enumerate(lines) if x.lstrip().startswith("python_naive"))
    said = re.findall(r" ([a-z~])  (noise|[-\d.]+)", "\n".join(lines[first : first + 4]))
    assert said == [("s", "noise"), ("d", "noise"), ("o", "noise"), ("~", "3.35")]
