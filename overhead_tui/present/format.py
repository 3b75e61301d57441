"""Number formatting shared by the CLI table, the exporters and the app (no UI imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.units import (  # noqa: F401  (re-exported for the views)
    fmt_gflops,
    fmt_number,
    fmt_percent,
    fmt_ratio,
    fmt_seconds,
)

DENSE_KERNEL_NAME = "numpy_matmul"
"""The built-in scenario that declares ``DENSE_KERNEL = True`` (scenarios/numpy_matmul.py)."""

if TYPE_CHECKING:
    from overhead_tui.engine.events import ProbeStarted


def status_text(result: ScenarioResult) -> str:
    """The status word, with ``!`` appended when the result carries stability warnings."""
    return result.status + (" !" if result.status == "ok" and result.warnings else "")


LADDER_HEADERS: tuple[str, ...] = (
    "rung",
    "scenario",
    "n",
    "median",
    "GFLOP/s",
    "× dense",
    "ns/FMA",
    "status",
)
"""Column headers of the ladder table shared by the CLI and the Markdown report."""


def ladder_row(result: ScenarioResult) -> tuple[str, ...]:
    """One ladder table row; an invalid or failed scenario shows no speed, only its status."""
    speed = result.has_speed
    return (
        str(result.rung),
        result.name,
        str(result.n),
        fmt_seconds(result.median_s) if speed else "—",
        fmt_gflops(result.gflops) if speed else "—",
        fmt_ratio(result.vs_dense) if speed else "—",
        fmt_number(result.ns_per_fma) if speed else "—",
        status_text(result),
    )


def dense_reference_note(summary: RunSummary) -> str | None:
    """Which reference the "× dense" ratios use, when it is not this run's dense kernel.

    None when the run has a dense kernel result (the ratios use it).
    """
    if summary.dense is not None:
        return None
    chosen = [s for s in summary.scenarios if s.dense_kernel]
    if chosen:
        dense = chosen[0]
        return f"× dense is blank: the dense kernel {dense.name} has no result ({dense.status})"
    return (
        "× dense is blank: no dense kernel was selected "
        f"(add --scenario {DENSE_KERNEL_NAME} to measure it)"
    )


def probe_progress(probe: ProbeStarted) -> str:
    """What the run does while it measures probes: which, how many remain, time left
    (short: it shares the status line with the progress bar at 80 columns)."""
    remaining = probe.remaining_s
    left = f", ~{remaining:.0f} s left" if remaining is not None else ""
    return f"probe {probe.index + 1}/{probe.total} {probe.name}{left}"


def machine_line(summary_machine: object) -> str:
    """One line describing the machine: CPU, cores, Python, numpy and BLAS with its threads."""
    m = summary_machine
    blas = getattr(m, "blas", None)
    blas_text = "BLAS unknown"
    if blas is not None and blas.library:
        blas_text = f"{blas.library} {blas.version or ''} {blas.architecture or ''}".strip()
        blas_text += f", {blas.threads} threads"
    python = getattr(m, "python", None)
    py = f"{python.implementation} {python.version}" if python else "Python"
    return (
        f"{getattr(m, 'cpu_model', '?')} · {getattr(m, 'effective_cpus', 0)}/"
        f"{getattr(m, 'logical_cpus', 0)} CPUs · {py} · numpy {getattr(m, 'numpy_version', '?')}"
        f" · {blas_text}"
    )
