"""How the app's code is laid out (issue 13): styles in ``.tcss`` files beside the screens, and
one table of actions behind the bindings, the palette, the help and the README."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest
from textual.screen import Screen
from textual.widgets import DataTable

import overhead_tui.tui.screens as screens_package
from overhead_tui.tui.actions import ACTIONS, palette
from overhead_tui.tui.app import OverheadApp
from overhead_tui.tui.screens.modals import HELP
from overhead_tui.tui.screens.scenario import ScenarioScreen
from tests.conftest import RECORDED_SUMMARY, fixture_summary

ROOT = Path(__file__).resolve().parents[2]


def _screen_classes() -> list[type[Screen]]:
    found = []
    for info in pkgutil.iter_modules(screens_package.__path__, "overhead_tui.tui.screens."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__ == module.__name__:
                found.append(cls)
    return found


SCREENS = _screen_classes()


def test_the_walk_finds_the_screens():
    names = {cls.__name__ for cls in SCREENS}
    assert {"LadderScreen", "MachinesScreen", "HelpScreen", "BaseScreen"} <= names


@pytest.mark.parametrize("cls", SCREENS, ids=lambda c: c.__name__)
def test_no_screen_has_inline_css(cls):
    """Screens keep their styles in a ``.tcss`` file (widgets may keep ``DEFAULT_CSS``)."""
    assert "DEFAULT_CSS" not in vars(cls), f"{cls.__name__}: move DEFAULT_CSS into a .tcss file"
    assert not vars(cls).get("CSS"), f"{cls.__name__}: move CSS into a .tcss file"


@pytest.mark.parametrize("cls", SCREENS, ids=lambda c: c.__name__)
def test_every_css_path_exists(cls):
    if cls.CSS_PATH is None:
        return
    paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
    folder = Path(inspect.getfile(cls)).parent
    for path in paths:
        assert (folder / path).is_file(), f"{cls.__name__}: {path} missing"


# -- one table of actions: bindings, palette, help and README agree ---------------------------

OWNED_ELSEWHERE = {
    "enter": "DataTable's select key (the ladder opens the highlighted scenario)",
    "escape": "every pushed screen's Back binding",
    "ctrl+p": "Textual's command palette",
}
"""Keys in the help that the app does not bind itself, and who handles them."""


def test_app_bindings_come_from_the_table():
    assert [(b.key, b.action) for b in OverheadApp.BINDINGS] == [
        (a.key, a.action) for a in ACTIONS if a.is_binding
    ]


def test_every_binding_has_a_help_line():
    missing = [a.display for a in ACTIONS if a.is_binding and not a.help]
    assert not missing, f"keys without a help line: {missing}"


def test_every_help_key_is_bound():
    """Vice versa: the help describes no key that nothing handles."""
    bound = {b.key for b in OverheadApp.BINDINGS}
    for a in ACTIONS:
        if a.key and a.help and a.key not in bound:
            assert a.key in OWNED_ELSEWHERE, f"help describes `{a.display}` but nothing binds it"
    assert OverheadApp.COMMAND_PALETTE_BINDING == "ctrl+p"
    assert any(b.key == "escape" for b in ScenarioScreen.BINDINGS)  # type: ignore[union-attr]
    assert any(b.key == "enter" for b in DataTable.BINDINGS)  # type: ignore[union-attr]


def test_every_app_action_is_in_the_table():
    """A new ``action_<name>`` on the app goes in the table (so it gets a key, a palette entry
    or both, and a help line)."""
    own = {  # the app's own and its mixins' (the size-sweep actions), not Textual's
        n.removeprefix("action_")
        for cls in OverheadApp.__mro__
        if cls.__module__.startswith("overhead_tui")
        for n in vars(cls)
        if n.startswith("action_")
    }
    listed = {a.action for a in ACTIONS if a.action}
    assert own == listed


def test_the_help_screen_lists_every_key():
    for a in ACTIONS:
        if a.key and a.help:
            assert f"| `{a.display}` | {a.help} |" in HELP


async def test_every_binding_and_palette_entry_meet_in_the_palette():
    app = OverheadApp(summary=fixture_summary(RECORDED_SUMMARY))
    async with app.run_test(size=(120, 40)):
        commands = list(app.get_system_commands(app.screen))
        callbacks = [c.callback for c in commands]
        titles = [c.title for c in commands]
        for a in ACTIONS:
            if a.needs and getattr(app, a.needs) is None:
                assert a.title not in titles  # offered only when the app has what it needs
                continue
            if a.is_binding:  # bound keys are in the palette (quit: Textual's own entry)
                method = getattr(app, f"action_{a.action}")
                assert method in callbacks, f"`{a.display}` ({a.action}) is not in the palette"
        for a in palette():  # and every palette entry of the table runs its action
            if a.needs and getattr(app, a.needs) is None:
                continue
            assert a.title in titles
            assert getattr(app, f"action_{a.action}") in callbacks


def _readme_keys() -> set[str]:
    """The keys written in the first column of the tour's key table (docs/tour.md)."""
    lines = (ROOT / "docs" / "tour.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| key | action |")
    keys: set[str] = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        keys |= set(re.findall(r"`([^`]+)`", line.split("|")[1]))
    return keys


def test_the_tour_lists_the_same_keys():
    assert _readme_keys() == {a.display for a in ACTIONS if a.key and a.help}


# -- no import cycle inside the app (function-local imports count) ----------------------------

TUI = ROOT / "overhead_tui" / "tui"


def _tui_imports() -> dict[str, set[str]]:
    """Each ``overhead_tui.tui`` module's imports of other ``overhead_tui.tui`` modules, found
    anywhere in its source (top level or inside a function)."""
    graph: dict[str, set[str]] = {}
    for path in TUI.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
        graph[name] = {m for m in found if m.startswith("overhead_tui.tui")}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
            if nxt in graph and not state.get(nxt):
                found = visit(nxt, [*path, nxt])
                if found:
                    return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if not state.get(start):
            found = visit(start, [start])
            if found:
                return found
    return None


def test_the_cycle_finder_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle_in_the_app():
    graph = _tui_imports()
    assert "overhead_tui.tui.widgets.tabs" in graph
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])
