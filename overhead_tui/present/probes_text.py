"""The probes as the table ``overhead-tui probes`` prints: one line per probe (value, unit,
spread over its processes, layer), its other figures below it."""

from __future__ import annotations

from overhead_tui.summary.probes import UNAVAILABLE_PREFIX, ProbeResult
from overhead_tui.summary.units import fmt_number

PROBE_SPREAD_WARN = 0.10
"""Spread over a probe's processes at or above which it is flagged ``!`` (10 %)."""


def probe_table(results: dict[str, ProbeResult]) -> tuple[list[str], int]:
    """(the table's lines, how many probes failed); a probe that cannot run on this machine
    (``ProbeResult.unavailable``) is listed as such and is no failure."""
    lines: list[str] = []
    lines.append(f"{'probe':<18} {'value':>10}  {'unit':<12} {'spread':>8} {'procs':>5}  layer")
    failed = 0
    for result in results.values():
        if result.value is None:
            failed += not result.unavailable
            said = (
                f"not on this machine: {(result.error or '').removeprefix(UNAVAILABLE_PREFIX)}"
                if result.unavailable
                else f"failed: {result.error}"
            )
            lines.append(
                f"{result.name:<18} {'—':>10}  {result.unit:<12} {'':>8}  {result.layer}: {said}"
            )
            continue
        spread = "—" if result.spread is None else f"{result.spread * 100:.0f} %"
        flag = " !" if result.spread is not None and result.spread >= PROBE_SPREAD_WARN else "  "
        note = "  (≤ 0: below the resolution; counted as 0)" if result.value <= 0 else ""
        if result.interval:
            note += f"  [{fmt_number(result.interval[0])}–{fmt_number(result.interval[1])}]"
        lines.append(
            f"{result.name:<18} {fmt_number(result.value):>10}  {result.unit:<12} "
            f"{spread:>6}{flag} {len(result.samples):>5}  {result.layer}{note}"
        )
        for key, value in sorted(result.details.items()):
            if isinstance(value, bool):
                lines.append(f"{'':<20}{key} = {'yes' if value else 'no'}")
            elif isinstance(value, str):
                lines.append(f"{'':<20}{key} = {value}")
            elif isinstance(value, (int, float)) and key != "within_process_spread":
                lines.append(f"{'':<20}{key} = {_detail(key, float(value), result)}")
    lines.append(
        "value = median over the probe's worker processes (procs); spread = (max − min) / "
        f"median of them; ! marks a spread ≥ {PROBE_SPREAD_WARN:.0%} (a shared VM: compare ratios "
        "in one run)"
    )
    return lines, failed


def _detail(key: str, value: float, result: ProbeResult) -> str:
    """A detail's value and per-process interval; a cost ≤ 0 is "below resolution", never
    printed as a (negative) cost."""
    bounds = (result.detail_intervals or {}).get(key)
    interval = f" [{fmt_number(bounds[0])}–{fmt_number(bounds[1])}]" if bounds else ""
    if key.endswith("_ns") and value <= 0:
        return f"below resolution (measured {fmt_number(value)}; counted as 0){interval}"
    return fmt_number(value) + interval
