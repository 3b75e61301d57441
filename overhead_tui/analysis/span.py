"""The span of a run on one line: pure Python → the dense kernel → the matrix engine, each
factor measured on this machine (the question the tool exists for).

* pure Python: the ladder's first ok rung (lowest ``RUNG``) that dispatches bytecode (more than
  ``INTERPRETED_DISPATCHES`` per multiply-add) and calls no numpy (``python_naive`` in the
  default ladder);
* the dense kernel: the run's dense kernel, as timed;
* the lower-precision rung (the engine's, where it runs): the fastest ok rung at a lower
  precision (bfloat16, float16; int8 only without one), as timed (in a float64 run, at its
  own precision: ``engine.plan.rung_dtype``);
* the engine: the fastest floating-point lower-precision family the ``precision_peak`` probe
  measured on one core (AMX BF16 where the CPU has it; int8's GOP/s only without one), in its
  own precision, and the
  float64 peak of one core (``simd_fma``; float32's in a float32 run) where no such family
  was measured.

Factors are GFLOP/s over GFLOP/s (GOP/s for int8), so a step that changes precision says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from overhead_tui.summary.measured import INTERPRETED_DISPATCHES
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.summary.vocabulary import FAMILY_DTYPES, FLOAT_DTYPES


@dataclass(frozen=True)
class Step:
    """One point of the span: what it is, its rate (GFLOP/s, GOP/s for int8) and dtype."""

    what: str
    rate: float
    dtype: str
    how: str
    """How it was measured (a rung's timing, a probe)."""


@dataclass(frozen=True)
class Span:
    """Pure Python, the dense kernel and the engine of one run (each None when missing)."""

    python: Step | None
    dense: Step | None
    engine: Step | None
    engine_rung: Step | None = None
    """The fastest lower-precision rung as timed (None without one)."""

    def factor(self, step: Step | None) -> float | None:
        """``step``'s rate over pure Python's (None without both)."""
        if step is None or self.python is None or not self.python.rate:
            return None
        return step.rate / self.python.rate


def _pure_python(result: ScenarioResult) -> bool:
    """It dispatches bytecode and calls no numpy (a loop over numpy scalars is not pure)."""
    events = result.events_per_fma
    if not events or (events.dispatches or 0.0) <= INTERPRETED_DISPATCHES:
        return False
    return not (events.numpy_calls or events.numpy_scalars or events.numpy_operations)


def span(summary: RunSummary) -> Span:
    """The run's span (module docstring)."""
    ok = [r for r in summary.scenarios if r.has_speed and r.gflops]
    python = min((r for r in ok if _pure_python(r)), key=lambda r: (r.rung, r.name), default=None)
    dense = summary.dense
    lower = [r for r in ok if r.dtype not in FLOAT_DTYPES]
    flops = [r for r in lower if r.dtype != "int8"]  # GOP/s of int8 are no FLOP/s
    fastest = max(flops or lower, key=lambda r: r.gflops or 0.0, default=None)
    engine = None
    families = [f for f in summary.machine.precision_peaks if f.one_core]
    floating = [f for f in families if f.unit == "FLOP"]  # GOP/s of int8 are no FLOP/s
    if families:
        best = max(floating or families, key=lambda f: f.one_core or 0.0)
        dtype = FAMILY_DTYPES.get(best.family, "")
        engine = Step(best.family, float(best.one_core or 0.0), dtype, "precision_peak, one core")
    else:
        run = summary.settings.dtype if summary.settings.dtype == "float32" else "float64"
        peak = summary.machine.peak_gflops.get(run)  # the run's own float peak
        if peak is not None and peak.one_core:
            engine = Step(f"{run} SIMD", float(peak.one_core), run, "simd_fma, one core")
    return Span(
        Step(python.name, float(python.gflops or 0.0), python.dtype, "timed")
        if python is not None
        else None,
        Step(dense.name, float(dense.gflops or 0.0), dense.dtype, "timed")
        if dense is not None and dense.has_speed and dense.gflops
        else None,
        engine,
        Step(fastest.name, float(fastest.gflops or 0.0), fastest.dtype, "timed")
        if fastest is not None
        else None,
    )
