"""The ladder table's headers and rows, and the notes under it on its "× dense" column:
one home for what the CLI's table, the Markdown report and the app's ladder show per rung."""

from __future__ import annotations

from typing import TYPE_CHECKING

from overhead_tui.present.error_text import headline
from overhead_tui.present.format import status_text
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.units import fmt_gflops, fmt_number, fmt_percent, fmt_ratio, fmt_seconds
from overhead_tui.summary.vocabulary import NOT_RUN_YET, rate_unit

if TYPE_CHECKING:
    from overhead_tui.analysis.span import Step


LADDER_HEADERS: tuple[str, ...] = (
    "rung",
    "scenario",
    "n",
    "median",
    "GFLOP/s",
    "× dense",
    "× Python",
    "ns/FMA",
    "status",
)
"""Column headers of the ladder table shared by the CLI and the Markdown report (a float run's;
:func:`ladder_headers` gives any dtype's)."""


def ladder_headers(dtype: str) -> tuple[str, ...]:
    """:data:`LADDER_HEADERS` with the speed in ``dtype``'s unit (``GOP/s`` for int8)."""
    return tuple(rate_unit(dtype) if h == "GFLOP/s" else h for h in LADDER_HEADERS)


def skipped_for_dtype(summary: RunSummary) -> tuple[list[str], list[str]]:
    """(names of the rungs skipped because they do not support the run's dtype, the other
    rungs' lines "name: status — error"): a lower-precision run skips most of the ladder, and
    one line says so instead of twenty."""
    grouped, others = [], []
    for r in summary.scenarios:
        if r.status == "skipped" and (r.error or "").startswith(
            f"does not support {summary.settings.dtype}"
        ):
            grouped.append(r.name)
        elif r.status != "ok":
            others.append(f"{r.name}: {r.status} — {headline(r.error or '')}")
    return grouped, others


def vs_python(result: ScenarioResult, python: Step | None) -> float | None:
    """``result``'s speed over pure Python's (the run's span, ``analysis.span``): how many
    times faster than the ladder's pure-Python rung; None without a speed, or across dtypes."""
    if not result.has_speed or not result.gflops or python is None or not python.rate:
        return None
    return result.gflops / python.rate if python.dtype == result.dtype else None


def dense_cell(result: ScenarioResult, dtype: str) -> str:
    """The "× dense" cell: the ratio, "—" without a speed, or the rung's own dtype where it
    is not the run's ``dtype`` (an engine rung at its own precision: ``engine.plan.rung_dtype``;
    its speed is in another unit of work than the dense kernel's)."""
    if not result.has_speed:
        return "—"
    return result.dtype if result.dtype != dtype else fmt_ratio(result.vs_dense)


def ladder_row(
    result: ScenarioResult, python: Step | None = None, dtype: str | None = None
) -> tuple[str, ...]:
    """One ladder table row; an invalid or failed scenario shows no speed, only its status.
    ``python``: the run's pure-Python step (``analysis.span``), for the "× Python" column;
    ``dtype``: the run's (default: the rung's own)."""
    speed = result.has_speed
    faster = vs_python(result, python)
    return (
        str(result.rung),
        result.name,
        str(result.n),
        fmt_seconds(result.median_s) if speed else "—",
        fmt_gflops(result.gflops) if speed else "—",
        dense_cell(result, dtype or result.dtype),
        fmt_ratio(faster) if faster is not None else "—",
        fmt_number(result.ns_per_fma) if speed else "—",
        status_text(result),
    )


def builtin_dense_kernel() -> str:
    """The name of the built-in scenario that declares ``DENSE_KERNEL = True``."""
    from overhead_tui.plugins.scenarios import discover

    return next((s.name for s in discover() if s.dense_kernel), "the dense kernel")


BELOW_DENSE = 0.95
"""× dense under which a rung is said to have beaten the dense kernel (within 5 %: a tie)."""


def below_dense_note(summary: RunSummary) -> str | None:
    """Why a ratio below 1 × dense is no error: "below 1 × dense: scipy_blas_direct (0.91×)
    ran faster than the dense kernel numpy_matmul …", or None when none did."""
    dense = summary.dense
    faster = [
        r for r in summary.scenarios
        if r.vs_dense is not None and r.vs_dense < BELOW_DENSE and dense is not None
        and r.name != dense.name
    ]  # fmt: skip
    if not faster or dense is None:
        return None
    names = ", ".join(f"{r.name} ({fmt_ratio(r.vs_dense)})" for r in faster)
    cv = f" (their CV: {fmt_percent(dense.cv)})" if dense.cv is not None else ""
    return (
        f"below 1 × dense: {names} ran faster than the dense kernel {dense.name} in this run: "
        f"the same kind of GEMM with a layer less, or the host slowed the dense kernel's "
        f"samples{cv}"
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
        dtype = summary.settings.dtype
        if dense.status == "skipped" and (dense.error or "").startswith(
            f"does not support {dtype}"
        ):
            return (
                f"× dense is blank: the dense kernel {dense.name} does not compute {dtype}; "
                "compare the rungs by their GFLOP/s and the machine's peaks for it"
            )
        if dense.error == NOT_RUN_YET:
            return f"× dense is blank: the dense kernel {dense.name} has not run yet"
        return f"× dense is blank: the dense kernel {dense.name} has no result ({dense.status})"
    return (
        "× dense is blank: no dense kernel was selected "
        f"(add --scenario {builtin_dense_kernel()} to measure it)"
    )
