"""Probe files: discovery and declarations.

A probe (``probes/NAME.py``, discovered by file path like scenarios) measures one unit cost
with the helpers of ``overhead_tui.api``; ``engine.probe_runs`` measures probes in worker
processes and caches their results per machine and interpreter.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from overhead_tui.plugins.scenarios import (
    ScenarioFileError,
    declared_processes,
    literal_assignments,
    parse_module,
)
from overhead_tui.summary.layers import LAYERS

_REQUIRED = ("NAME", "TITLE", "UNIT", "LAYER")


@dataclass(frozen=True)
class ProbeSpec:
    """A probe's static declarations."""

    name: str
    title: str
    unit: str
    layer: str
    path: Path
    description: str = ""
    requires: tuple[str, ...] = ()
    processes: int = 0
    """Worker processes to measure in (``PROCESSES`` in the probe file; 0: the default)."""
    builds: bool = False
    """Defines ``prepare()``: it compiles what ``measure`` runs, which a run with the probes to
    measure builds before anything is timed (``engine.prebuild``)."""


def builtin_probes_dir() -> Path:
    """The built-in ``probes/`` folder (in a wheel: ``overhead_tui/_builtin/probes``)."""
    package = Path(__file__).resolve().parent.parent
    shipped = package / "_builtin" / "probes"
    return shipped if shipped.is_dir() else package.parent / "probes"


def discover_probes(folder: Path | None = None) -> list[ProbeSpec]:
    """Probes in ``folder`` (default: built-in), by name.

    Raises:
        ScenarioFileError: a probe file is broken or declares an unknown layer.
    """
    specs = []
    for path in sorted((folder or builtin_probes_dir()).glob("*.py")):
        if path.name.startswith("_"):
            continue
        _, tree = parse_module(path)
        values = literal_assignments(tree, path, _REQUIRED)
        missing = [k for k in _REQUIRED if k not in values]
        if missing:
            raise ScenarioFileError(f"{path}: missing declaration {missing[0]}")
        if values["LAYER"] not in LAYERS:
            raise ScenarioFileError(f"{path}: unknown layer {values['LAYER']!r}")

        specs.append(
            ProbeSpec(
                name=values["NAME"],
                title=values["TITLE"],
                unit=values["UNIT"],
                layer=values["LAYER"],
                path=path.resolve(),
                description=(ast.get_docstring(tree) or "").strip(),
                requires=tuple(values.get("REQUIRES", ())),
                processes=declared_processes(values.get("PROCESSES", 0), path),
                builds=any(
                    isinstance(node, ast.FunctionDef) and node.name == "prepare"
                    for node in tree.body
                ),
            )
        )
    return specs
