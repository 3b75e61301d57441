"""numpy's own layers in the model: each numpy operation a kernel makes, priced by its kind.

The rung's counting pass records every operation on its arrays, with the elements it
touches (``worker.counting.numpy_census``; per multiply-add in ``EventsPerFma
.numpy_operations``).  The ``numpy_call`` probe times one call of each kind at a sweep of
sizes from one element to far beyond the caches.  Three rows per operation:

* ``library_layers``, *numpy call overhead*: calls × the kind's fixed cost per call (the
  intercept of its small sizes; ``view_ns`` for an index returning a view, the probe's
  ``scalar_load_ns`` + ``index_tuple_ns`` for one returning an element,
  ``scalar_operand_ns`` for converting a scalar operand of a ufunc);
* ``simd_compute``, *numpy inner loop*: elements × the kind's lowest time per element over
  the sweep (its inner loop at its best: for the one-dimensional kinds the data in the
  nearest cache; for einsum, whose inner loop restarts once per output row and summed index,
  the largest size, where that restart is best amortised);
* ``memory``, *numpy memory traffic and temporaries*: elements × (the time per element at the
  operation's own size, interpolated in log-log between the sweep's sizes, minus that lowest
  one): what the same loop pays at that size for caches missed, new output pages and
  write-back.

BLAS calls (``blas``) are priced at the measured compute peak as before
(``attribution._peak_rows``); ``other`` operations are counted and left unexplained.
Source of every constant: the probe (``probes/numpy_call.py``), measured on this machine.
Limits: a kind's rate is measured with its operands alone in the caches; a kernel that
streams a second array between two calls on the first finds less of it there.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.summary.breakdown import BreakdownRow
from overhead_tui.summary.measured import NumpyOperations
from overhead_tui.summary.probes import Probes

SWEPT_KINDS = ("elementwise", "elementwise_out", "outer", "reduce", "einsum", "create")
"""Kinds the ``numpy_call`` probe times at a sweep of sizes (``KIND_call_ns``, ``KIND_elements``,
``KIND_ns_per_element``)."""


@dataclass(frozen=True)
class NumpyRate:
    """One kind's measured costs: a fixed cost per call and a time per element by size."""

    call_ns: float
    """Fixed cost of one call (ns)."""
    call_interval: unc.Interval
    elements: tuple[float, ...] = ()
    """The sweep's sizes (float64 elements, ascending)."""
    ns_per_element: tuple[float, ...] = ()
    """Time per element beyond the fixed cost at each size (ns)."""

    @property
    def in_cache(self) -> float:
        """The lowest time per element of the sweep: the inner loop, data in cache (ns)."""
        return min(self.ns_per_element, default=0.0)

    def at(self, elements: float) -> float:
        """Time per element at ``elements`` per call (ns): log-log interpolation between the
        two nearest sizes of the sweep, the end values beyond it."""
        sizes, rates = self.elements, self.ns_per_element
        if not sizes:
            return 0.0
        if elements <= sizes[0]:
            return rates[0]
        if elements >= sizes[-1]:
            return rates[-1]
        i = bisect.bisect_right(sizes, elements)
        x0, x1 = math.log(sizes[i - 1]), math.log(sizes[i])
        y0, y1 = (math.log(max(r, 1e-6)) for r in (rates[i - 1], rates[i]))
        return math.exp(y0 + (y1 - y0) * (math.log(elements) - x0) / (x1 - x0))


def numpy_rates(probes: Probes) -> dict[str, NumpyRate]:
    """{kind: rate} from the ``numpy_call`` probe; kinds it did not measure are absent
    (probes from before the sweep: none)."""
    probe = probes.get("numpy_call")
    if probe is None:
        return {}
    details = probe.details or {}
    stored = probe.detail_intervals or {}
    rates: dict[str, NumpyRate] = {}

    def fixed(key: str) -> tuple[float, unc.Interval] | None:
        value = details.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        low, high = stored.get(key) or (value, value)
        return float(value), (min(low, value), max(high, value))

    for kind in SWEPT_KINDS:
        call = fixed(f"{kind}_call_ns")
        sizes, per_element = details.get(f"{kind}_elements"), details.get(f"{kind}_ns_per_element")
        if call is None or not isinstance(sizes, list) or not isinstance(per_element, list):
            continue
        rates[kind] = NumpyRate(call[0], call[1], tuple(sizes), tuple(per_element))
    for kind, key in (("view", "view_ns"), ("scalar_operand", "scalar_operand_ns")):
        if (found := fixed(key)) is not None:
            rates[kind] = NumpyRate(*found)
    load, tuple_ns = fixed("scalar_load_ns"), fixed("index_tuple_ns")
    if load is not None and tuple_ns is not None:
        rates["scalar_index"] = NumpyRate(
            load[0] + tuple_ns[0], (load[1][0] + tuple_ns[1][0], load[1][1] + tuple_ns[1][1])
        )
    return rates


def _priced(
    layer: str, events: float, unit_ns: float, unit: str, unit_interval: unc.Interval | None = None
) -> BreakdownRow:
    low, high = unit_interval or (unit_ns, unit_ns)
    return BreakdownRow(
        layer=layer,
        events_per_fma=events,
        unit_cost=unit_ns,
        unit=unit,
        ns_per_fma=events * unit_ns,
        unit_interval=(low, high),
        ns_interval=(events * low, events * high),
    )


def numpy_rows(
    operations: list[NumpyOperations], rates: dict[str, NumpyRate]
) -> list[BreakdownRow] | None:
    """The rows of a kernel's numpy operations (module docstring), or None when an operation
    of a priced kind has no measured rate (older probes: the caller keeps its old model) or
    none is priced here (BLAS calls only)."""
    rows: list[BreakdownRow] = []
    for op in operations:
        if op.kind in ("blas", "other") or not op.calls_per_fma:
            continue
        rate = rates.get(op.kind)
        if rate is None:
            return None
        what = f"{op.operation} ({op.kind.replace('_', ' ')})"
        rows.append(
            _priced(
                "library_layers",
                op.calls_per_fma,
                rate.call_ns,
                f"ns/numpy call: {what}",
                rate.call_interval,
            )
        )
        if not rate.elements or not op.elements:
            continue
        elements = op.calls_per_fma * op.elements
        size = f"{op.elements:,.0f} elements"
        rows.append(
            _priced(
                "simd_compute",
                elements,
                rate.in_cache,
                f"ns/element: {what}'s inner loop at its best rate",
            )
        )
        beyond = max(0.0, rate.at(op.elements) - rate.in_cache)
        if beyond > 0:
            rows.append(
                _priced(
                    "memory",
                    elements,
                    beyond,
                    f"ns/element: {what} at {size} per call, beyond the cache",
                )
            )
    return rows


def prices_compute(operations: list[NumpyOperations]) -> bool:
    """Whether the numpy rows price the kernel's arithmetic (no BLAS call does it)."""
    return bool(operations) and not any(op.kind == "blas" for op in operations)
