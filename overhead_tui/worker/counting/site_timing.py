"""Timing a site of C work at its own operands (``counting.sites`` finds and captures them).

The instruction alone in a loop (its operands bound to the loop's arguments ``o0``, ``o1`` …,
a one-shot iterator built again each trip), minus the same loop empty, minus its own
dispatches at this moment's ns/dispatch (:func:`loop_dispatch_ns`): what its C code costs at
the kernel's own arguments.  :data:`WINDOWS` windows of about :data:`TIMING_WINDOW_S` each:
the median is its time, the lowest and highest its interval.
"""

from __future__ import annotations

import dis
import statistics
import time
from collections.abc import Callable
from typing import Any

from overhead_tui.worker.counting.sites import Site, expression, operand_text

TIMING_WINDOW_S = 0.002
"""One timed window of a site's loop (its calls calibrated to about this long)."""
WINDOWS = 5
"""Windows per site."""
MAX_REPS = 200_000
"""The most executions one window runs."""


def _source(site: Site) -> tuple[str, list[object]] | None:
    """(the body of the timing loop, the values its names ``o0``, ``o1`` … hold)."""
    assert site.operands is not None
    values: list[object] = []

    def name(value: object) -> str:
        values.append(value)
        return f"o{len(values) - 1}"

    parts = [operand_text(o, name) for o in site.operands]
    stored = ""
    if site.op == "STORE_SUBSCR":  # it writes the element it finds there back
        try:
            stored = name(site.operands[0].value[site.operands[1].value])
        except Exception:
            return None
    return expression(site.op, site.argrepr, parts, stored, copy_in_place=True), values


def _loop(body: str, count: int) -> Callable[..., None]:
    arguments = ", ".join(f"o{i}" for i in range(count))
    source = (
        f"def timed({arguments}{', ' if count else ''}reps):\n    for _ in reps:\n        {body}\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<site timing>", "exec"), namespace)
    timed: Callable[..., None] = namespace["timed"]
    return timed


def _body_dispatches(function: Callable[..., object]) -> int:
    """Dispatches of one trip of the loop body beyond the empty loop's (its instructions
    between ``FOR_ITER``'s target store and the jump back, ``CACHE`` entries excluded)."""
    instructions = [i for i in dis.get_instructions(function) if i.opname != "CACHE"]
    names = [i.opname for i in instructions]
    start = names.index("FOR_ITER") + 2  # FOR_ITER, STORE_FAST _
    end = max(i for i, name in enumerate(names) if name.startswith("JUMP_BACKWARD"))
    return sum(1 for n in names[start:end] if n not in ("NOP", "EXTENDED_ARG", "PRECALL"))


def _window(function: Callable[..., None], values: list[object], reps: int) -> float:
    trips = range(reps)
    start = time.perf_counter_ns()
    function(*values, trips)
    return (time.perf_counter_ns() - start) / reps


def time_site(site: Site, dispatch_ns: float) -> tuple[float, float, float] | None:
    """(ns per execution, lowest, highest) of a site's C work at its own operands: its loop
    minus the empty loop, minus its own dispatches at ``dispatch_ns``; None when it cannot
    run alone (its operands refuse it outside the kernel)."""
    if site.operands is None or site.reaches_python:
        return None
    made = _source(site)
    if made is None:
        return None
    body, values = made
    try:  # an operation that fails when repeated (a pop from a list it empties) is untimed
        timed = _loop(body, len(values))
        empty = _loop("pass", 0)
        reps = 1
        while reps < MAX_REPS and _window(timed, values, reps) * reps < TIMING_WINDOW_S * 1e9 / 4:
            reps *= 4
        extra = _body_dispatches(timed) * dispatch_ns
        results = [
            _window(timed, values, reps) - _window(empty, [], reps) - extra for _ in range(WINDOWS)
        ]
    except Exception:
        return None
    return statistics.median(results), min(results), max(results)


def loop_dispatch_ns() -> float:
    """ns per dispatch of this moment: an empty loop against one with four more ``LOAD_FAST``
    + ``POP_TOP`` pairs per trip, the same loop form :func:`time_site` uses."""
    plain = _loop("pass", 0)
    padded = _loop("o0; o0; o0; o0", 1)
    reps = 50_000
    lows = [(_window(padded, [1.0], reps) - _window(plain, [], reps)) / 8 for _ in range(WINDOWS)]
    return max(0.0, statistics.median(lows))


def reference_samples() -> list[float]:
    """ns/dispatch of the dispatch probe's reference loop, three short samples (about 40 ms):
    the machine's speed of the moment, in the same loop everywhere it is taken (beside a
    rung's samples, and beside its sites' timings: ``EventsPerFma.site_reference_ns``)."""
    from overhead_tui.kit.probing import ProbeContext, dispatch_samples
    from overhead_tui.worker.counting.opcodes import count_events

    context = ProbeContext(repeats=3, min_sample_s=0.01, counter=count_events)
    return dispatch_samples(context, trips=50_000)[0]
