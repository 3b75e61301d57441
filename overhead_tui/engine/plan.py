"""What a run will do before it starts: sizes, order, run directory and the planned summary."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import overhead_tui
from overhead_tui.engine.results import machine_blas, new_result
from overhead_tui.engine.spawn import (
    same_interpreter,
)
from overhead_tui.machine.host import (
    describe_machine,
)
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import RunSummary, Settings


def size_for(spec: ScenarioSpec, settings: Settings) -> int:
    """The matrix order a scenario runs at: ``settings.size`` or the scenario's default."""
    return settings.size if settings.size is not None else spec.default_size


def is_rectangular(settings: Settings, n: int) -> bool:
    """True when ``settings`` ask for A (m×k)·B (k×n) with m or k other than ``n``."""
    return (settings.m or n) != n or (settings.k or n) != n


def default_runs_dir() -> Path:
    """Where run directories go by default: the user data dir (platformdirs) / runs."""
    import platformdirs

    return platformdirs.user_data_path("overhead-tui", appauthor=False) / "runs"


def new_run_dir(parent: Path | None = None) -> Path:
    """Create and return a fresh run directory ``YYYYmmdd-HHMMSS-PID`` under ``parent``."""
    parent = parent or default_runs_dir()
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = parent / f"{stamp}-{os.getpid()}"
    suffix = 0
    while path.exists():
        suffix += 1
        path = parent / f"{stamp}-{os.getpid()}-{suffix}"
    path.mkdir(parents=True)
    return path


def planned_summary(
    specs: list[ScenarioSpec], settings: Settings, run_dir: Path | None = None
) -> RunSummary:
    """A summary listing ``specs`` as not yet run (what the app shows before a run starts).

    The machine line is filled from this process's own facts (numpy, BLAS) when the workers
    run on this interpreter; the first worker's ``environment`` event replaces them.
    """
    machine = describe_machine()
    if _same_interpreter(settings.python):  # the workers will load this very numpy and BLAS
        import numpy

        from overhead_tui.engine.worker import blas_info

        machine.numpy_version = numpy.__version__
        machine.blas = machine_blas(blas_info(), "numpy's default in this process (no worker yet)")
    return RunSummary(
        machine=machine,
        settings=settings,
        created=datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
        tool={"name": "overhead-tui", "version": overhead_tui.__version__},
        run_dir=str(run_dir) if run_dir is not None else None,
        scenarios=[
            new_result(s, size_for(s, settings), settings.dtype, settings.m, settings.k)
            for s in specs
        ],
    )


def _same_interpreter(python: str | None) -> bool:
    """True when workers run on this process's own interpreter *and packages* (a venv's python
    is the same file as its base's: see :func:`~overhead_tui.engine.spawn.same_interpreter`)."""
    return python is None or same_interpreter(python, sys.executable)


def run_order(specs: list[ScenarioSpec]) -> list[int]:
    """Indices of ``specs`` in the order they run: dense kernels first, then as given.

    The dense kernel is the reference of every "× dense"; measured first, each later rung's
    ratio is known the moment its own result lands.
    """
    return sorted(range(len(specs)), key=lambda i: (not specs[i].dense_kernel, i))
