"""Timing primitives: calibrated loops of kernel calls, timed with an injectable clock.

Follows pyperf's worker (``_worker.py::calibrate_loops``): a sample is ``loops`` back-to-back
calls, with ``loops`` chosen so that a sample lasts at least ``min_sample_s``; the per-call
time is the sample divided by ``loops``.  Warm-up samples are kept apart from the values.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

Timer = Callable[[], int]
"""A monotonic clock returning integer nanoseconds (``time.perf_counter_ns``)."""

MAX_LOOPS = 1_000_000
"""Upper bound on calls per sample, so a near-zero first timing cannot explode the loop."""


def calibrate_loops(call_s: float, min_sample_s: float) -> int:
    """Number of calls per sample so that one sample lasts at least ``min_sample_s``.

    Args:
        call_s: duration of one warm call (s); 0 or negative counts as 1 ns.
        min_sample_s: target sample duration (s), e.g. 0.05.
    """
    call_s = max(call_s, 1e-9)
    return max(1, min(MAX_LOOPS, math.ceil(min_sample_s / call_s)))


def time_calls(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    loops: int,
    timer: Timer = time.perf_counter_ns,
) -> tuple[float, Any]:
    """Call ``fn(*args)`` ``loops`` times back to back.

    Returns:
        (seconds per call, the last call's result).
    """
    result = None
    start = timer()
    for _ in range(loops):
        result = fn(*args)
    elapsed_ns = timer() - start
    return elapsed_ns / loops / 1e9, result


MAX_CALIBRATION_ROUNDS = 8
"""Re-timing rounds allowed while calibrating (each at least doubles the loops)."""


def calibrate(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    first_s: float,
    min_sample_s: float,
    timer: Timer = time.perf_counter_ns,
) -> tuple[int, list[float]]:
    """Calibrate loops by re-timing until a whole sample lasts ``min_sample_s`` (pyperf's way).

    A single warm call can be much slower than the steady state (caches, thread pools,
    frequency), so the loop count estimated from it is checked: the sample is timed and, while
    it is shorter than the target, the loops grow in proportion (at least × 2).

    Args:
        fn, args: the kernel and its arguments.
        first_s: one warm call's duration (s), the first estimate.
        min_sample_s: target duration of a sample (s).

    Returns:
        (loops, per-call times of the calibration samples in s: warm-ups, kept apart).
    """
    loops = calibrate_loops(first_s, min_sample_s)
    warmups = []
    for _ in range(MAX_CALIBRATION_ROUNDS):
        per_call, _ = time_calls(fn, args, loops, timer)
        warmups.append(per_call)
        if per_call * loops >= min_sample_s or loops >= MAX_LOOPS:
            break
        loops = min(MAX_LOOPS, max(loops * 2, calibrate_loops(per_call, min_sample_s * 1.1)))
    return loops, warmups


RESIDENT_SAMPLES = 5
"""Samples of the resident timing (its median is what the model uses)."""
