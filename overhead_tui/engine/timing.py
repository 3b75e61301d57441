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
