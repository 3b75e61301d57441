"""Scalene backend: per-line Python / native / system time of the scenario's own source.

Scalene 2.x: ``python -m scalene run --cpu-only --profile-all --profile-only STEM -o FILE
ENTRY --- TASK_JSON``.  Scalene runs a script, not ``-m``: ENTRY is the worker's entry file
(``overhead_tui/worker/__main__.py``, resolved by
:func:`~overhead_tui.engine.spawn.package_file`).  The scenario file is outside the worker's
folder, hence ``--profile-all`` narrowed by ``--profile-only``.  Scalene's JSON keys drift
between versions, so :func:`parse_profile` reads only ``files[path].lines[]`` with ``lineno``,
``line``, ``n_cpu_percent_python``, ``n_cpu_percent_c`` and ``n_sys_percent``, tolerating
anything else.  Scalene refuses programs that run too briefly (Scalene #613): the run is then
repeated with a longer duration.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from overhead_tui.engine.package import package_file
from overhead_tui.engine.spawn import Cancel, run_command, worker_env
from overhead_tui.errors import MissingPackageFile
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.profilers.capabilities import BackendJob, Capability
from overhead_tui.profilers.outcome import NO_SCALENE_TIME, profiled_per_call_s, run_failure
from overhead_tui.summary.profile import BackendResult, CpuShares, LineRow, ScaleneResult
from overhead_tui.worker.protocol import WorkerTask

WORKER_ENTRY = "overhead_tui.worker.__main__"
"""The module whose file Scalene runs as its program (``python -m overhead_tui.worker``)."""
RETRIES = 2
"""Times a too-short profile is repeated, doubling the duration each time; a run whose worker
ended without its result under Scalene (not a timeout, not the scenario's own error) is
repeated too (seen once in a loaded ``make test``, 2026-12-06), and reported if it stays so."""


def parse_profile(data: Any, source_stem: str) -> list[LineRow]:
    """Lines of the file whose name contains ``source_stem``, with CPU shares (fractions).

    Returns a :class:`LineRow` (lineno, line, python, native, system) per line with any time;
    an empty list when the profile has no such file (or is not a Scalene profile at all).
    """
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return []
    lines = []
    for path, detail in files.items():
        if source_stem not in Path(path).name or not isinstance(detail, dict):
            continue
        for line in detail.get("lines", []):
            if not isinstance(line, dict):
                continue
            python = float(line.get("n_cpu_percent_python", 0) or 0) / 100
            native = float(line.get("n_cpu_percent_c", 0) or 0) / 100
            system = float(line.get("n_sys_percent", 0) or 0) / 100
            if python + native + system > 0:
                lines.append(
                    LineRow(line.get("lineno"), line.get("line", ""), python, native, system)
                )
    return lines


def profile(
    python: str,
    worker: WorkerTask,
    spec: ScenarioSpec,
    timeout_s: float,
    cancel: Cancel | None = None,
) -> BackendResult:
    """Run the worker under Scalene and return the backend's profile part."""
    stem = Path(spec.path).stem
    try:
        script = package_file(WORKER_ENTRY)
    except MissingPackageFile as exc:  # a failure naming the file, never "no time recorded"
        return BackendResult("failed", reason=str(exc))
    duration = worker.duration_s
    reason = "no output"
    for _ in range(RETRIES + 1):
        with tempfile.TemporaryDirectory(prefix="overhead-scalene-") as tmp:
            out = Path(tmp) / "scalene.json"
            result = run_command(
                [
                    python or sys.executable,
                    "-m",
                    "scalene",
                    "run",
                    "--cpu-only",
                    "--profile-all",
                    "--profile-only",
                    stem,
                    "-o",
                    str(out),
                    str(script),
                    "---",
                    replace(worker, duration_s=duration).to_json(),
                ],
                timeout_s,
                {**worker_env(), "TMPDIR": tmp},  # Scalene's own temp folder goes in ours
                cancel,
            )
            try:
                data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
            except (json.JSONDecodeError, UnicodeDecodeError):
                data = {}
        if failure := run_failure(result, "Scalene"):
            if result.timed_out or result.worker_error or result.cancelled or result.start_error:
                return BackendResult("failed", reason=failure)
            reason = failure  # the worker died under Scalene's signals once in ~10 runs: again
            continue
        lines = parse_profile(data, stem)
        if lines:
            return ScaleneResult(
                "ok",
                lines=tuple(lines),
                totals=CpuShares(
                    sum(x.python for x in lines),
                    sum(x.native for x in lines),
                    sum(x.system for x in lines),
                ),
                elapsed_s=data.get("elapsed_time_sec"),
                profiled_per_call_s=profiled_per_call_s(result),
            )
        reason = NO_SCALENE_TIME
        duration *= 2  # Scalene refuses short programs: lengthen, do not show empty
    return BackendResult("failed", reason=reason)


def detect() -> Capability:
    """Scalene in this interpreter, found by its import spec and its package's version, not
    by running ``python -m scalene --version``: Scalene's start imports JAX and PyTorch where
    they are installed (4.7 s of its 6.7 s on a 2-vCPU Zen 4 with both), paid again by every
    profile and doctor run.  A Scalene that is installed but does not start fails its run,
    naming Scalene's error."""
    import importlib.metadata
    import importlib.util

    try:
        found = importlib.util.find_spec("scalene") is not None
        version = importlib.metadata.version("scalene") if found else None
    except (ImportError, ValueError, importlib.metadata.PackageNotFoundError):
        version = None
    if version is None:
        return Capability(
            "scalene", False, reason="scalene is not importable here", fix="pip install scalene"
        )
    return Capability("scalene", True, version, path=f"{sys.executable} -m scalene")


def run(job: BackendJob) -> BackendResult:
    """The registry's entry: profile ``worker`` under Scalene."""
    return profile(job.python, job.worker, job.spec, job.timeout_s, job.cancel)
