"""The measurement side never imports Textual (ARCHITECTURE.md: one direction of data)."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

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
        "overhead_tui.sweeps.sizes",
    }
    assert new <= set(ENGINE_MODULES)


PROBE = """
import importlib, json, sys
found = {}
for name in sys.argv[1:]:
    importlib.import_module(name)
    pulled = {"textual", "rich"} & set(sys.modules)
    if pulled:
        found[name] = sorted(pulled)
        break
print(json.dumps(found))
"""
"""Imports the modules one after another in one interpreter and names the first whose import
brings in Textual or Rich (every module a dependency pulls in is imported by then too)."""


def test_no_module_outside_the_app_imports_textual_or_rich():
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *ENGINE_MODULES],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == {}


def test_the_check_names_a_module_that_imports_rich():
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, "overhead_tui.summary.records", "rich.text"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert json.loads(proc.stdout.splitlines()[-1]) == {"rich.text": ["rich"]}
