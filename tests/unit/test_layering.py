"""The measurement side never imports Textual (ARCHITECTURE.md: one direction of data)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import overhead_tui

ENGINE_MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(overhead_tui.__path__, "overhead_tui.")
    if not m.name.startswith(("overhead_tui.tui", "overhead_tui._builtin"))
    and m.name != "overhead_tui.__main__"  # runs the CLI on import
)
"""Every module outside ``overhead_tui.tui``: engine, model, profilers, exporters, commands."""


def test_the_list_covers_the_new_modules():
    new = {
        "overhead_tui.analysis.compare",
        "overhead_tui.analysis.roofline",
        "overhead_tui.engine.sweep",
    }
    assert new <= set(ENGINE_MODULES)


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_module_does_not_import_textual(module):
    code = f"import sys, {module}; assert not {{'textual', 'rich'}} & set(sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
