"""The sites of C work timed at each counted size and carried to the timed n
(``counting.sites`` finds and times them; ``counting.phase`` calls these).

Per site: its executions at each counted size are extrapolated as every count is (the cubic of
``counting.scaling``); its ns per execution, timed at the smallest and the largest counted
size (:func:`time_sites`), is fitted as ``call_ns + element_ns × items`` (both ≥ 0), the items
its operands hold at the timed n taken from the power of n they grow with.  A site untimed
where it was timed (it ran Python code, an operand could not be evaluated again) is carried
with its calls and its reason, unpriced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from overhead_tui.summary.measured import SiteCost
from overhead_tui.worker.counting.site_timing import time_site
from overhead_tui.worker.counting.sites import Site, elements_at


@dataclass(frozen=True)
class SiteTiming:
    """One site at one counted size: its executions and its timing there."""

    site: Site
    calls: int
    ns: tuple[float, float, float] | None
    """(median, lowest, highest) ns per execution; None: not timed."""
    attempted: bool = True
    """Whether it was timed at this size (:func:`time_sites`)."""
    kernel_s: float | None = None
    """Seconds of one call of the kernel at the timed n right after this site's timings (at
    the largest size's entry), where :func:`time_sites` was given one to time."""


def _c_call(site: Site) -> bool:
    """A call of a builtin function or method: a profile ``c_call`` event per execution."""
    if site.op != "CALL" or not site.operands:
        return False
    callee = site.operands[0]
    return callee.maker is None and type(callee.value).__name__ in (
        "builtin_function_or_method",
        "method_descriptor",
        "wrapper_descriptor",
        "method-wrapper",
    )


def time_sites(
    counted: list[list[tuple[Site, int]]],
    dispatch_ns: float,
    kernel_call: Callable[[], float | None] | None = None,
) -> list[dict[tuple[str, int], SiteTiming]]:
    """The sites of each counted size (``counted``, one list per size) with their executions,
    each timed at its own operands (``site_timing.time_site``) at the smallest and the largest
    size, the two the per-item cost is read between, one right after the other so both see
    the machine in the same state (the sizes between only count their executions)."""
    found: list[dict[tuple[str, int], SiteTiming]] = [
        {(s.code.co_qualname, s.offset): SiteTiming(s, calls, None, False) for s, calls in sites}
        for sites in counted
    ]
    ends = sorted({0, len(found) - 1}) if found else []
    beside: list[tuple[tuple[str, int], float]] = []  # in timing order
    for key in {k for i in ends for k in found[i]}:
        for i in ends:
            if (at := found[i].get(key)) is not None:
                found[i][key] = SiteTiming(at.site, at.calls, time_site(at.site, dispatch_ns))
        # the machine's speed for the kernel itself at this site's moment (module doc)
        last = found[ends[-1]].get(key)
        timed = kernel_call is not None and last is not None and last.ns is not None
        if timed and kernel_call is not None and (seconds := kernel_call()) is not None:
            beside.append((key, seconds))
    # one call is one sample: each site takes the median of its own and its neighbours' calls
    for index, (key, _) in enumerate(beside):
        window = sorted(s for _, s in beside[max(0, index - 1) : index + 2])
        found[ends[-1]][key] = replace(found[ends[-1]][key], kernel_s=window[len(window) // 2])
    return found


def site_costs(
    sizes: list[int], timings: list[dict[tuple[str, int], SiteTiming]], n: int
) -> list[SiteCost]:
    """Every site seen at any counted size, per multiply-add at ``n`` (module doc)."""
    from overhead_tui.worker.counting.scaling import extrapolate

    keys = sorted({k for t in timings for k in t})
    fmas = float(n) ** 3
    out: list[SiteCost] = []
    for key in keys:
        at = [t.get(key) for t in timings]
        calls = [float(x.calls) if x else 0.0 for x in at]
        last = next(x for x in reversed(at) if x is not None)
        site = last.site
        if sizes[-1] == n:  # counted at n itself
            per_fma = calls[-1] / fmas
        else:
            per_fma = extrapolate(sizes, calls, n) / fmas if len(sizes) >= 4 else 0.0
        timed = [(s, x) for s, x in zip(sizes, at, strict=True) if x is not None and x.ns]
        note = site.why_untimed
        if site.reaches_python:
            note = "runs Python code: its frames and bytecodes are counted"
        if not timed or len(timed) < len([x for x in at if x is not None and x.attempted]):
            out.append(
                SiteCost(
                    code=key[0],
                    offset=key[1],
                    op=site.op,
                    label=site.label or site.op,
                    numpy=site.numpy,
                    c_call=_c_call(site),
                    calls_per_fma=per_fma,
                    call_ns=None,
                    runs_python=site.reaches_python,
                    note=note or "its operands refuse to run it alone",
                )
            )
            continue
        items = np.array([float(x.site.elements) for _, x in timed])
        ns = np.array([x.ns[0] for _, x in timed if x.ns])
        lows = [x.ns[1] for _, x in timed if x.ns]
        call_ns, element_ns = _fit(items, ns, lows)
        median, low, high = last.ns if last.ns else (0.0, 0.0, 0.0)
        spread = [low / median, high / median] if median > 0 else [1.0, 1.0]
        out.append(
            SiteCost(
                code=key[0],
                offset=key[1],
                op=site.op,
                label=site.label,
                numpy=site.numpy,
                c_call=_c_call(site),
                iterates=any(o.maker is not None for o in site.operands or []),
                calls_per_fma=per_fma,
                call_ns=call_ns,
                element_ns=element_ns,
                elements=elements_at([s for s, _ in timed], [x.site.elements for _, x in timed], n),
                spread=spread,
                sizes=[s for s, _ in timed],
                measured_ns=[float(v) for v in ns],
                kernel_s=last.kernel_s,
            )
        )
    return out


GROWTH = 0.25
"""A site's time per execution grows with its items when its lowest window rises from the
smallest counted size to the largest by more than this fraction (the two timed one right after
the other, and a neighbour's load only adds time, so their lowest windows are compared; the
windows' range under load is no bound: it rejected ``reduce`` over 8 and 20 items); else it is
one cost per execution (a view, an index, a call whose loop is too short to see)."""


def _fit(items: np.ndarray, ns: np.ndarray, lows: list[float]) -> tuple[float, float]:
    """(ns per execution at no items, ns per item): least squares over the medians ``ns``,
    both ≥ 0, the slope only where the time grows beyond its noise (:data:`GROWTH`)."""
    if len(items) < 2 or float(np.ptp(items)) == 0.0:
        return max(0.0, float(np.median(ns))), 0.0
    rise = lows[-1] - lows[0]
    if rise <= GROWTH * max(lows[0], 0.0):
        return max(0.0, float(np.median(ns))), 0.0
    slope, intercept = np.polyfit(items, ns, 1)
    if slope <= 0:
        return max(0.0, float(np.median(ns))), 0.0
    if intercept < 0:
        return 0.0, float(np.sum(ns * items) / np.sum(items * items))
    return float(intercept), float(slope)
