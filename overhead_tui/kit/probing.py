"""What a probe module gets to measure with: the engine's timing and the event counter.

A probe (``probes/NAME.py``) declares ``NAME``, ``TITLE``, ``UNIT``, ``LAYER`` as literals and
defines ``measure(ctx)`` returning a :class:`ProbeMeasurement` (its samples in the probe's
unit, its details, its estimate when that is not their median); the worker takes the estimate
or the median (``value``) and the relative IQR (``spread``).  Each probe runs in
its own worker process, like a scenario.

Probes import from the package only through this module; the SIMD helpers of
:mod:`overhead_tui.kit.simd` (target ISA, accumulator choice, asm check) are re-exported here.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from overhead_tui.kit.simd import (
    SimdTarget,
    analyse_asm,
    asm_warning,
    choose_accumulators,
    isa_target,
)
from overhead_tui.kit.timing import Timer, calibrate, time_calls

__all__ = [
    "ProbeContext",
    "ProbeMeasurement",
    "SimdTarget",
    "analyse_asm",
    "asm_warning",
    "baseline_loop",
    "choose_accumulators",
    "dispatch_samples",
    "isa_target",
    "paired_samples",
    "usable_cpus",
]


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask; ``os.cpu_count()`` off Linux): the
    threads a probe's all-cores measurement runs."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


SETTLED = 0.01
"""A timing stops before its ``repeats`` once :data:`SETTLED_ROUNDS` rounds agree within this
share of their median (every function's samples, in :meth:`ProbeContext.time_many`): a compiled
kernel's samples in one process agree within 0–1 % (the clock, FMA, L1 and GEMM probes on a
2-vCPU Zen 3 and a 2-vCPU Xeon, 2026-12), where four more samples move a median of seven by
less than the range of the first three.  The interpreted loops' samples, 5–40 % apart on those
shared hosts, take every round."""
SETTLED_ROUNDS = 3
"""Rounds a timing always takes before :data:`SETTLED` may stop it."""


def settled(samples: list[float], share: float = SETTLED, least: int = SETTLED_ROUNDS) -> bool:
    """At least ``least`` samples whose range is within ``share`` of their median (a timing's
    samples here; a probe's processes in ``engine.probe_runs.tight``)."""
    if len(samples) < least:
        return False
    middle = statistics.median(samples)
    return bool(middle) and (max(samples) - min(samples)) / abs(middle) <= share


class ProbeContext:
    """Timing and counting helpers handed to ``measure(ctx)``.

    Args:
        repeats: samples per timing, at most.
        min_sample_s: calibrated shortest sample (s).
        timer: integer-nanosecond clock.
        counter: ``counter(fn, args)``, the exact events of one call (the worker hands in
            its ``counting.opcodes.count_events``; the kit never imports the worker).
        settle: stop a timing early once its samples agree within this share of their
            median (:func:`settled`; the worker passes :data:`SETTLED`); None: always
            ``repeats`` samples.
    """

    def __init__(
        self,
        repeats: int = 7,
        min_sample_s: float = 0.05,
        timer: Timer = time.perf_counter_ns,
        counter: Callable[[Callable[..., object], tuple[object, ...]], Any] | None = None,
        settle: float | None = None,
    ) -> None:
        self.repeats = repeats
        self.min_sample_s = min_sample_s
        self.timer = timer
        self.counter = counter
        self.settle = settle

    def time(self, fn: Callable[..., object], *args: object) -> list[float]:
        """Per-call times (s) of ``fn(*args)``: a warm call, calibration, then up to
        ``repeats`` samples (fewer once they agree: ``settle``)."""
        return self.time_many([fn], *args)[0]

    def _settled(self, times: list[list[float]]) -> bool:
        return self.settle is not None and all(settled(t, self.settle) for t in times)

    def _loops(self, fn: Callable[..., object], args: tuple[object, ...]) -> int:
        warm, _ = time_calls(fn, args, 1, self.timer)
        return calibrate(fn, args, warm, self.min_sample_s, self.timer)[0]

    def time_pair(
        self, fn_a: Callable[..., object], fn_b: Callable[..., object], *args: object
    ) -> list[tuple[float, float]]:
        """Interleaved per-call times of two variants, so drift hits both alike (s, s)."""
        a, b = self.time_many([fn_a, fn_b], *args)
        return list(zip(a, b, strict=True))

    def time_many(self, fns: list[Callable[..., object]], *args: object) -> list[list[float]]:
        """Per-call times (s) of each of ``fns(*args)``, up to ``repeats`` each (fewer once
        every function's samples agree: ``settle``), taken round-robin
        (one sample of every function, then the next round): a shared machine's drift hits
        them all alike, where timing one function's samples after another's puts each at
        another moment's speed (a fit over them then fails: ``loop_mix`` read a 0.33–0.36
        fit error under load, 0.09–0.10 quiet)."""
        loops = [self._loops(fn, args) for fn in fns]
        times: list[list[float]] = [[] for _ in fns]
        for _ in range(self.repeats):
            for fn, n, found in zip(fns, loops, times, strict=True):
                found.append(time_calls(fn, args, n, self.timer)[0])
            if self._settled(times):
                break
        return times

    def count(self, fn: Callable[..., object], *args: object) -> Any:
        """Exact events of one call of ``fn(*args)`` (the worker's ``EventCounts``: see
        ``worker.counting.opcodes``).

        Raises:
            RuntimeError: the context was made without a counter.
        """
        if self.counter is None:
            raise RuntimeError("this probe context counts nothing: make it with counter=")
        return self.counter(fn, args)


@dataclass(frozen=True)
class ProbeMeasurement:
    """What a probe's ``measure(ctx)`` returns (and :func:`paired_samples`).

    Attributes:
        samples: the unit cost per sample, in the probe's ``UNIT``.
        details: the named figures the analysis reads (``summary.probes.probe_value``).
        estimate: the probe's value when it is not the median of the samples (the
            min-of-pairs estimate of :func:`paired_samples`, a fit over loops, the clock's
            verdict); None: the median.
    """

    samples: list[float]
    details: dict[str, Any] = field(default_factory=dict)
    estimate: float | None = None

    @property
    def median(self) -> float:
        """The median of :attr:`samples`."""
        ordered = sorted(self.samples)
        return ordered[len(ordered) // 2]

    @classmethod
    def from_dict(cls, measured: dict[str, Any]) -> ProbeMeasurement:
        """A probe file's dict (``{"samples": [...], "details": {...}}``, the estimate as the
        detail ``value``): the form probe files returned before this record."""
        details = dict(measured.get("details", {}))
        estimate = details.pop("value", None)
        return cls([float(x) for x in measured["samples"]], details, estimate)


def baseline_loop(n: int, x: object, z: object) -> object:
    """The reference loop: ``y = x is z`` per trip, typical cheap instructions, no allocation.

    Probes compare a loop doing one costly thing per trip (``y = x * z`` on floats, ``y =
    lst[k]``) with this loop, whose instructions are the same in number and kind except the
    costly one is replaced by ``IS_OP`` (a pointer comparison).
    """
    y = None
    for _ in repeat(None, n):
        y = x is z
    return y


def _dispatches_per_trip(
    ctx: ProbeContext, loop: Callable[..., object], args: tuple[object, ...]
) -> float:
    """Exact dispatches per loop trip: counted at 2,000 and 1,000 trips, differenced."""
    return (
        ctx.count(loop, 2000, *args).dispatches - ctx.count(loop, 1000, *args).dispatches
    ) / 1000


def dispatch_samples(ctx: ProbeContext, trips: int = 200_000) -> tuple[list[float], float]:
    """ns per instruction dispatch of :func:`baseline_loop`, per sample; dispatches per trip."""
    per_trip = _dispatches_per_trip(ctx, baseline_loop, (1.5, 2.5))
    times = ctx.time(baseline_loop, trips, 1.5, 2.5)
    return [t / (trips * per_trip) * 1e9 for t in times], per_trip


def paired_samples(
    ctx: ProbeContext,
    loop: Callable[..., object],
    args: tuple[object, ...],
    trips: int,
    events_per_trip: float = 1.0,
    baseline: Callable[..., object] | None = None,
) -> ProbeMeasurement:
    """ns per event that ``loop(trips, *args)`` costs beyond a baseline loop.

    The baseline is :func:`baseline_loop`, or ``baseline(trips, 1.5, 2.5)``: an unrolled loop
    of the same shape as ``loop`` with each costly instruction replaced by ``is``, so the
    difference per trip is many events' worth and stands out of the timing noise.

    Both loops are timed interleaved (so a shared machine's drift hits both alike).  A cost of
    a few ns is a small difference of two large times, so the estimate uses each loop's
    *minimum* over the samples (the least-disturbed run, as ``timeit`` advises for
    micro-benchmarks): (min time per trip of ``loop`` − min of the baseline − the difference
    in exact dispatches per trip × the baseline's ns per dispatch) / ``events_per_trip``.
    The returned samples are the same formula per interleaved pair, for the spread.

    Returns:
        samples in ns per event, their min-of-pairs ``estimate``, and details: the
        dispatches per trip of the loop and of the baseline.
    """
    base = baseline or baseline_loop
    per_trip = _dispatches_per_trip(ctx, loop, args)
    base_per_trip = _dispatches_per_trip(ctx, base, (1.5, 2.5))
    pairs = ctx.time_pair(lambda n: loop(n, *args), lambda n: base(n, 1.5, 2.5), trips)

    def estimate(t_loop: float, t_base: float) -> float:
        # compiled loops (a Cython pair) dispatch nothing: there is no difference to remove
        ns_per_dispatch = t_base / (trips * base_per_trip) * 1e9 if base_per_trip else 0.0
        extra_ns = (t_loop - t_base) / trips * 1e9
        return (extra_ns - (per_trip - base_per_trip) * ns_per_dispatch) / events_per_trip

    samples = [estimate(a, b) for a, b in pairs]
    value = estimate(min(a for a, _ in pairs), min(b for _, b in pairs))
    details = {"dispatches_per_trip": per_trip, "baseline_dispatches_per_trip": base_per_trip}
    return ProbeMeasurement(samples, details, value)
