"""The Bytecode tab's words: at which n its rows were counted, against the n the rung was timed
at (no UI imports).

The rows are exact counts of one kernel call at the last counting size
(``worker.counting.phase``: ``bytecode_n``, 20), per multiply-add at that n; only the totals the
model charges (``events_per_fma``) are extrapolated to the timed n (``counting.scaling``: a cubic
through the four counted sizes).  A row no count can scale alone (its loop's trip count is not
recorded), so the tab labels its rows with their own n and says what that means before them.
"""

from __future__ import annotations

from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import fmt_number

NOTE_WIDTH = 76
"""Cells a note line takes at most: it does not wrap in an 80-column terminal."""


def counts_label(result: ScenarioResult) -> str:
    """Where the rows were counted against where the rung was timed: ``counted at n = 20 (per
    FMA at that n); the rung was timed at n = 128``."""
    counted, n = result.bytecode_n, result.n
    if counted == n:
        return f"counted at the timed n = {n} (per FMA)"
    where = f"n = {counted}" if counted is not None else "a small n"
    return f"counted at {where} (per FMA at that n); the rung was timed at n = {n}"


def per_fma_header(result: ScenarioResult) -> str:
    """The rows' column: ``per FMA`` with the n they were counted at where it is not the timed
    n (two lines, so the column stays narrow)."""
    counted = result.bytecode_n
    if counted == result.n:
        return "per FMA"
    return f"per FMA\nat n = {counted if counted is not None else '?'}"


def bytecode_notes(result: ScenarioResult) -> list[str]:
    """The lines said before the table, each at most :data:`NOTE_WIDTH` cells: where the rows
    were counted, what that does to a loop's rows, what the model charges at the timed n, and
    the superinstructions' second halves (when there are any)."""
    counted, n = result.bytecode_n, result.n
    lines = [counts_label(result)]
    if counted and counted != n:
        lines.append(
            f"a loop row run n² times is 1/n per FMA: {fmt_number(1 / counted)} here, "
            f"{fmt_number(1 / n)} at n = {n}"
        )
    events = result.events_per_fma
    if events is not None and events.python_twin:  # the compiled rung runs none of these
        lines.append("its Python twin's bytecode: the source run by the interpreter, whose")
        lines.append("events price what the compiled code still does; none is dispatched")
    elif events is not None:
        scaled = " (extrapolated)" if counted != n else ""
        lines.append(
            f"the model charges {fmt_number(events.dispatches)} dispatches per FMA at n = {n}"
            + scaled
        )
    fused = sum(b.fused_per_fma for b in result.bytecode)
    if fused:
        lines.append(
            f"+: a superinstruction's second half ({fmt_number(fused)} per FMA), not charged"
        )
    return lines
