"""The measurement side never imports Textual (DESIGN.md: one direction of data)."""

from __future__ import annotations

import subprocess
import sys

import pytest

ENGINE_MODULES = [
    "overhead_tui.model",
    "overhead_tui.discovery",
    "overhead_tui.machine",
    "overhead_tui.format",
    "overhead_tui.engine.runner",
    "overhead_tui.engine.worker",
    "overhead_tui.engine.results",
    "overhead_tui.export",
    "overhead_tui.commands.run",
]


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_module_does_not_import_textual(module):
    code = f"import sys, {module}; assert not {{'textual', 'rich'}} & set(sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
