"""The ladder on other Pythons, started from the app: ``overhead-tui interpreters`` runs as a
separate process and its combined summary opens on the Interpreters screen."""

from __future__ import annotations

import sys
import time

from overhead_tui.summary.records import Settings
from overhead_tui.tui.app import OverheadApp
from tests.conftest import FIXTURES


async def test_other_pythons_run_from_the_app_and_open_the_interpreters_screen(tmp_path):
    settings = Settings(
        scenarios=["fast_python"],
        scenarios_dirs=[str(FIXTURES / "fast")],
        size=8,
        repeats=2,
        probes=False,
    )
    app = OverheadApp(settings, runs_dir=tmp_path, autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("I")
        assert type(app.screen).__name__ == "InterpretersDialog"
        await pilot.press("enter")  # nothing named: said, and the dialog stays
        assert "at least one Python" in str(app.screen.query_one("#error").render())
        app.screen.query_one("#pythons").value = sys.executable
        app.screen.query_one("#as-is").value = True  # this venv has numpy: no venv to build
        app.screen.query_one("#pythons").focus()
        await pilot.press("enter")
        deadline = time.monotonic() + 600
        while type(app.screen).__name__ != "InterpretersScreen":
            assert time.monotonic() < deadline, "the interpreters run did not end in 600 s"
            await pilot.pause(0.2)
        combined = app.interpreters
        assert len(combined.interpreters) == 2  # this Python (baseline) and the one named
        assert all(e.error is None for e in combined.interpreters)
        assert app.others is None
        await pilot.press("escape")
        await pilot.pause(0.2)


async def test_a_python_that_names_nothing_is_said_in_one_line_and_nothing_opens(tmp_path):
    app = OverheadApp(Settings(scenarios=["python_naive"]), runs_dir=tmp_path, autorun=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("I")
        app.screen.query_one("#pythons").value = "python9.99"
        app.screen.query_one("#pythons").focus()
        await pilot.press("enter")
        deadline = time.monotonic() + 120

        def said() -> list[str]:  # a notification is a message the app handles after the call
            return [n.message for n in app._notifications]

        while app.others is not None or not any("did not finish" in m for m in said()):
            assert time.monotonic() < deadline, f"no end of the interpreters run said: {said()}"
            await pilot.pause(0.1)
        assert any("did not finish" in m and "python9.99" in m for m in said()), said()
        assert type(app.screen).__name__ == "LadderScreen"
