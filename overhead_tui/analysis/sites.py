"""The model rows of a kernel's sites of C work: each timed in the rung's own worker at its own
operands (``worker.counting.sites``), so a new spelling of a known mechanism, or a mechanism no
probe prices, is priced without a case of its own.

Per site, at most two rows:

* its calls per multiply-add × its ns per execution beyond its dispatch when its operands hold
  no items (:func:`fixed_ns`), in the layer of its mechanism (:func:`site_layer`);
* its calls × the items its operands hold at the timed n × its ns per item (the fit's slope:
  its element loop), ``scalar_compute``, for a builtin's loop (``sum``, ``math.fsum``).  numpy's
  loops are priced by the elements each operation touches at the timed n, at the
  ``numpy_call`` probe's rate for its kind and footprint (``numpy_layers.numpy_loop_rows``):
  at the counted sizes a numpy call is mostly its fixed cost, and its work may grow faster
  than its operands (an outer product, an einsum).  A numpy function the census could not
  see into (``other``: it ran on plain copies of its operands, as ``numpy.outer`` does) has no
  loop rows of its own, nor one the census never saw (a method such as ``ndarray.dot``:
  ``SiteCost.census_priced`` False): its element loop is priced from its own fit as a
  builtin's is (older files: by name, :func:`unpriced_calls`).

A site that runs the user's Python code is not timed (its frames and bytecodes are priced by
the interpreter rows); one whose operands could not be evaluated again is shown with its calls
and no price: its time stays *unexplained*, and its row says why.  Each row's interval is the
site's timing windows' range at the largest counted size.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from overhead_tui.analysis.rows import ranged_row
from overhead_tui.summary.breakdown import BreakdownRow
from overhead_tui.summary.measured import NumpyOperations, SiteCost

MECHANISM_LAYERS: dict[str, str] = {
    "CALL": "call_overhead",
    "BINARY_SUBSCR": "container_access",
    "STORE_SUBSCR": "container_access",
    "BINARY_OP": "dynamic_dispatch",
    "COMPARE_OP": "dynamic_dispatch",
    "CONTAINS_OP": "dynamic_dispatch",
    "BUILD_TUPLE": "boxing",
}
"""The layer of a site's mechanism: a C call, a subscript through a type's slot, an operator
through a type's slot (dynamic type dispatch), an object created (a tuple); numpy's work of
any of these is ``library_layers``."""


def site_layer(site: SiteCost) -> str:
    """The layer a site's fixed cost belongs to (:data:`MECHANISM_LAYERS`)."""
    if site.numpy and site.op != "BUILD_TUPLE":
        return "library_layers"
    return MECHANISM_LAYERS.get(site.op, "call_overhead")


def fixed_ns(site: SiteCost) -> float:
    """ns an execution costs beyond its element loop: the fit's intercept, or for numpy's work
    (whose loop the census's rows price) its time at the smallest counted size, where that
    loop is shortest; a fit's intercept through two sizes' noise can fall to nothing."""
    if site.numpy and site.measured_ns:
        return site.measured_ns[0]
    return site.call_ns or 0.0


def site_scale(
    reference_ns: Sequence[float],
    site_reference_ns: list[float] | None,
    median_s: float | None = None,
    site_kernel_s: list[float] | None = None,
) -> float:
    """How much slower the machine ran the rung's samples than its sites' timings:
    (the samples' median s/call) / (the kernel's median s/call timed beside the sites), the
    very code at both moments, where it was timed there; else (ns/dispatch beside the
    samples) / (ns/dispatch beside the sites), the same reference loop; 1 without either.  A
    site timed while the machine was busier or quieter than during the samples is so brought
    to the samples' speed."""
    beside = [x for x in site_kernel_s or [] if x > 0]
    if median_s and beside:
        return median_s / statistics.median(beside)
    now = [x for x in reference_ns if x > 0]
    then = [x for x in site_reference_ns or [] if x > 0]
    return statistics.median(now) / statistics.median(then) if now and then else 1.0


def callee_name(site: SiteCost) -> str:
    """The last dotted part of a site's callee (``numpy.outer(…)`` → ``outer``); "" for a site
    that is not a call."""
    if site.op != "CALL":
        return ""
    return site.label.split("(", 1)[0].rsplit(".", 1)[-1]


def unpriced_calls(operations: list[NumpyOperations]) -> frozenset[str]:
    """The numpy functions whose element loop the census priced no row for (kind ``other``):
    their sites' own fits price it instead."""
    return frozenset(op.operation for op in operations if op.kind == "other" and op.calls_per_fma)


def site_rows(
    sites: list[SiteCost],
    scale: float = 1.0,
    unpriced: frozenset[str] = frozenset(),
    median_s: float | None = None,
) -> list[BreakdownRow]:
    """The rows of a kernel's sites (module doc), the busiest first, their costs × ``scale``
    (:func:`site_scale`), or × (the samples' median ``median_s``) / (the kernel's call timed
    right after that site, ``SiteCost.kernel_s``) where it was: the speed of the site's own
    moment, which a noisy host can change within a second; ``unpriced``: numpy functions whose
    loop the census left unpriced (:func:`unpriced_calls`)."""
    rows: list[BreakdownRow] = []
    for site in sorted(sites, key=lambda s: -s.calls_per_fma):
        if site.calls_per_fma <= 0:
            continue
        own = median_s / site.kernel_s if median_s and site.kernel_s else scale
        at = f" (×{own:.2f}: the samples' speed)" if abs(own - 1.0) > 0.005 else ""
        if site.call_ns is None:
            if not site.runs_python:
                unit = f"not timed: {site.label} ({site.note})"
                rows.append(BreakdownRow(site_layer(site), site.calls_per_fma, None, unit, None))
            continue
        low, high = site.spread or [1.0, 1.0]
        own_loop = (
            not site.numpy
            or site.census_priced is False
            or (site.census_priced is None and callee_name(site) in unpriced)
        )
        fixed = (fixed_ns(site) if not own_loop else site.call_ns) * own
        rows.append(
            ranged_row(
                site_layer(site),
                site.calls_per_fma,
                fixed,
                f"ns/execution, measured at its own arguments: {site.label}{at}",
                (fixed * low, fixed * high),
            )
        )
        if site.element_ns > 0 and site.elements > 0 and own_loop:
            rows.append(
                ranged_row(
                    "simd_compute" if site.numpy else "scalar_compute",
                    site.calls_per_fma * site.elements,
                    site.element_ns * own,
                    f"ns/item of {site.label}'s element loop, measured at its own arguments{at}",
                    (site.element_ns * own * low, site.element_ns * own * high),
                )
            )
    return rows


def timed_c_calls(sites: list[SiteCost]) -> tuple[float, float]:
    """(builtin calls, of them numpy's) per multiply-add that timed sites price: each a profile
    ``c_call`` event the builtin-call row must not price again."""
    timed = [s for s in sites if s.c_call and s.call_ns is not None]
    return (
        sum(s.calls_per_fma for s in timed),
        sum(s.calls_per_fma for s in timed if s.numpy),
    )


def prices_c_loops(sites: list[SiteCost]) -> bool:
    """Whether a timed site calls a builtin over a C iterator (``sum(map(f, x, y))``): the
    builtin census's calls from C are inside its timing."""
    return any(s.call_ns is not None and s.iterates for s in sites)
