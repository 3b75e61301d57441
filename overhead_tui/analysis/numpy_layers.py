"""numpy's own layers in the model: each numpy operation a kernel makes, priced by its kind.

The rung's counting pass records every operation on its arrays, with the elements it
touches (``worker.counting.numpy_census``; per multiply-add in ``EventsPerFma
.numpy_operations``).  The ``numpy_call`` probe times one call of each kind at a sweep of
sizes from one element to far beyond the caches.  Three rows per operation:

* ``library_layers``, *numpy call overhead*: calls × the kind's fixed cost per call (the
  intercept of its small sizes; ``view_ns`` for an index returning a view, the probe's
  ``scalar_load_ns`` + ``index_tuple_ns`` for one returning an element, ``scalar_store_ns``
  for one writing an element, ``scalar_operand_ns`` for converting a scalar operand of a
  ufunc);
* ``simd_compute``, *numpy inner loop*: elements × the kind's lowest time per element over
  the sweep (its inner loop at its best: for the one-dimensional kinds the data in the
  nearest cache; for einsum, whose inner loop restarts once per output row and summed index,
  the largest size, where that restart is best amortised);
* ``memory``, *numpy memory traffic and temporaries*: elements × (the time per element at the
  operation's own size, interpolated in log-log between the sweep's sizes, minus that lowest
  one): what the same loop pays at that size for caches missed, new output pages and
  write-back.

BLAS calls (``blas``) are priced at the measured compute peak as before
(``attribution._peak_rows``); ``other`` operations (``ufunc.at``, ``np.vectorize`` …) are
shown as rows without a price: their time stays *unexplained*, and the row says why.
Source of every constant: the probe (``probes/numpy_call.py``), measured on this machine.
Limits: a kind's rate is measured with its operands alone in the caches; a kernel that
streams a second array between two calls on the first finds less of it there.
"""

from __future__ import annotations

from overhead_tui.analysis.rates import NumpyRate
from overhead_tui.analysis.rows import priced_row, ranged_row
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.breakdown import BreakdownRow
from overhead_tui.summary.measured import NumpyOperations
from overhead_tui.summary.vocabulary import GENERIC_OPS

INNER_LOOP_UNIT = "ns/restart of numpy's inner loop"
"""The unit of the rows pricing the restarts of numpy's inner loop (the ``numpy_call`` probe's
``inner_loop_ns``): part of the element loop, kept beside the sites' own timings."""


def numpy_rows(
    operations: list[NumpyOperations], rates: dict[str, NumpyRate]
) -> list[BreakdownRow] | None:
    """The rows of a kernel's numpy operations (module docstring), or None when an operation
    of a priced kind has no measured rate (older probes: the caller keeps its old model) or
    none is priced here (BLAS calls only)."""
    rows: list[BreakdownRow] = []
    for op in operations:
        if op.kind == "other" and op.calls_per_fma:  # shown, with no price: outside the model
            unit = f"numpy call outside the model: {op.operation} (no probe prices it)"
            rows.append(BreakdownRow("library_layers", op.calls_per_fma, None, unit, None))
            continue
        if op.kind == "blas" or not op.calls_per_fma:
            continue
        rate = rates.get(op.kind)
        if op.kind == "inner_loops":  # restarts of numpy's inner loop, where the probe has one
            if rate is not None:
                rows.append(
                    ranged_row(
                        "library_layers",
                        op.calls_per_fma,
                        rate.call_ns,
                        f"{INNER_LOOP_UNIT}: {op.operation} (short rows)",
                        rate.call_interval,
                    )
                )
            continue
        if rate is None:
            return None
        what = f"{op.operation} ({op.kind.replace('_', ' ')})"
        rows.append(
            ranged_row(
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
        fast, slow = rate.bounds()  # the probe processes' lowest and highest rates
        rows.append(
            ranged_row(
                "simd_compute",
                elements,
                rate.in_cache,
                f"ns/element: {what}'s inner loop at its best rate",
                (fast.in_cache, slow.in_cache),
            )
        )
        beyond = max(0.0, rate.at(op.elements) - rate.in_cache)
        if beyond > 0:
            rows.append(
                ranged_row(
                    "memory",
                    elements,
                    beyond,
                    f"ns/element: {what} at {size} per call, beyond the cache",
                    (
                        max(0.0, fast.at(op.elements) - fast.in_cache),
                        max(0.0, slow.at(op.elements) - slow.in_cache),
                    ),
                )
            )
    return rows


def numpy_loop_rows(
    operations: list[NumpyOperations], rates: dict[str, NumpyRate]
) -> list[BreakdownRow]:
    """The element-loop rows of :func:`numpy_rows` (its inner loop at its best rate, and what
    it pays at its own size beyond the nearest cache), without its fixed cost per call: that
    is timed at the kernel's own arguments (``analysis.sites``)."""
    rows = numpy_rows(operations, rates) or []
    kept = ("simd_compute", "memory")
    return [r for r in rows if r.layer in kept or r.unit.startswith(INNER_LOOP_UNIT)]


def numpy_scalar_rows(
    ops: dict[str, float], generic: float, costs: UnitCosts
) -> list[BreakdownRow]:
    """Rows of an element-wise loop over numpy arrays: each unspecialised instruction priced by
    its kind (subscript read, subscript write, arithmetic) plus the index tuples it builds; with
    probes from before those details, every one at the mean ``numpy_scalar_ns``."""
    parts = (costs.numpy_load_ns, costs.numpy_store_ns, costs.numpy_multiply_ns)
    if any(x is None for x in parts) or costs.index_tuple_ns is None:
        return [
            priced_row(
                "library_layers",
                generic,
                costs.numpy_scalar_ns,
                "ns/numpy scalar op",
                costs,
                "numpy_scalar_ns",
            )
        ]

    def kind(prefix: str) -> float:
        return sum(v for k, v in ops.items() if k in GENERIC_OPS and k.startswith(prefix))

    tuples = sum(v for k, v in ops.items() if k.startswith("BUILD_TUPLE"))
    return [
        priced_row(
            "library_layers",
            kind("BINARY_SUBSCR"),
            costs.numpy_load_ns,
            "ns/numpy element read",
            costs,
            "numpy_load_ns",
        ),
        priced_row(
            "library_layers",
            kind("STORE_SUBSCR"),
            costs.numpy_store_ns,
            "ns/numpy element write",
            costs,
            "numpy_store_ns",
        ),
        priced_row(
            "library_layers",
            kind("BINARY_OP"),
            costs.numpy_multiply_ns,
            "ns/numpy scalar arithmetic",
            costs,
            "numpy_multiply_ns",
        ),
        priced_row(
            "library_layers",
            tuples,
            costs.index_tuple_ns,
            "ns/index tuple",
            costs,
            "index_tuple_ns",
        ),
    ]
