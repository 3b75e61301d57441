"""Timing primitives: calibrated loops of kernel calls, timed with an injectable clock.

Follows pyperf's worker (``_worker.py::calibrate_loops``): a sample is ``loops`` back-to-back
calls, with ``loops`` chosen so that a sample lasts at least ``min_sample_s``; the per-call
time is the sample divided by ``loops``.  Warm-up samples are kept apart from the values.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable

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
    fn: Callable[..., object],
    args: tuple[object, ...],
    loops: int,
    timer: Timer = time.perf_counter_ns,
) -> tuple[float, object]:
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
    fn: Callable[..., object],
    args: tuple[object, ...],
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


QUICKEN_CALLS = 8
"""CPython 3.11 quickens a code object (switches it to the adaptive, specialising instructions)
at its 8th call (``QUICKENING_WARMUP_DELAY`` in CPython 3.11's ``Include/internal/
pycore_code.h``) or on a ``JUMP_BACKWARD``; a ``while`` loop ends in ``POP_JUMP_BACKWARD_IF_*``,
which does not count, so a kernel made of while loops runs generic instructions for its first
seven calls.  3.12 quickens every code object when it is created."""


def quicken(
    fn: Callable[..., object], args: tuple[object, ...], timer: Timer = time.perf_counter_ns
) -> list[float]:
    """Call a Python kernel until CPython 3.11 has quickened its code (at most
    :data:`QUICKEN_CALLS` calls), so the samples time the specialised instructions the
    counting phase counts; per-call times of those calls (s).  Nothing elsewhere."""
    code = getattr(fn, "__code__", None)
    if sys.version_info[:2] != (3, 11) or code is None:
        return []
    import dis

    looping = any("BACKWARD" in i.opname for i in dis.get_instructions(code))
    times: list[float] = []
    for _ in range(QUICKEN_CALLS):
        if any(i.opname == "RESUME_QUICK" for i in dis.get_instructions(code, adaptive=True)):
            break
        if times and not looping and times[0] >= LONG_CALL_S:
            break  # a loop-free wrapper of a long call: its few instructions do not matter
        times.append(time_calls(fn, args, 1, timer)[0])
    return times


LONG_CALL_S = 1e-3
"""A kernel whose own code has no loop (a wrapper calling compiled code) runs its dozen
instructions once a call: generic or specialised, they differ by tens of ns, under 1e-4 of a
call of 1 ms or more, so such a kernel is not called again to quicken it (c_naive_O2's 8 calls
took 0.64 s of a warm ladder, cpp_eigen's 1.1 s, 2026-12-07)."""


RESIDENT_SAMPLES = 5
"""Samples of the resident timing at most (its median is what the model uses; it stops at
three that agree within 1 %)."""
