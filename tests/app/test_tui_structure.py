"""How the app's code is laid out (issue 13): styles in ``.tcss`` files beside the screens."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.screen import Screen

import overhead_tui.tui.screens as screens_package


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
