"""Checking a summary against its JSON Schema (``summary/schema.json``), fast on large files:
a condensed copy is checked first, the full data only to name the exact place of an error.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any


class NonFiniteNumber(ValueError):
    """A ``NaN``, ``Infinity`` or ``-Infinity`` in a summary file: JSON extensions Python's
    reader accepts by default, and no measurement."""


def refuse_non_finite(constant: str) -> float:
    """``json.loads(..., parse_constant=refuse_non_finite)``: raise :class:`NonFiniteNumber`."""
    raise NonFiniteNumber(constant)


class SummaryError(Exception):
    """A summary file cannot be read: missing, not JSON, or not a valid overhead-tui summary."""


@cache
def summary_schema() -> dict[str, Any]:
    """The JSON Schema of the summary (``summary.schema.json`` in this package)."""
    text = resources.files("overhead_tui").joinpath("summary/schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_summary(data: Any) -> None:
    """Check ``data`` against the summary schema.

    Raises:
        SummaryError: with the first problem found, e.g. ``scenarios[3].status: 'fast' is not
            one of [...]``.
    """
    import jsonschema  # deferred: only needed when reading summaries back

    if not isinstance(data, dict) or "schema_version" not in data:
        raise SummaryError("not an overhead-tui summary (no schema_version)")
    version = data["schema_version"]
    if version not in READABLE_VERSIONS:
        raise SummaryError(
            f"schema_version {version!r} is not supported (this tool reads "
            f"{', '.join(map(str, READABLE_VERSIONS))})"
        )
    validator = jsonschema.Draft202012Validator(summary_schema())
    if validator.is_valid(condensed(data)):  # the fast path: long number lists checked once
        return
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SummaryError(f"invalid summary at {where}: {error.message}")


def check_consistent(data: dict[str, Any]) -> None:
    """Check what the schema cannot say of a summary's scenario records: each scenario once,
    sizes and flop counts of at least 1, a dtype this tool knows, and an ``ok`` record's
    median positive and within its own samples (a hand-edited file that contradicts itself
    is no measurement).

    Raises:
        SummaryError: naming the record and the field, e.g. ``scenarios.0.median_s``.
    """
    from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE

    seen: set[str] = set()
    for i, record in enumerate(data.get("scenarios") or []):
        where = f"scenarios.{i}"
        name = record.get("name")
        if name in seen:
            raise SummaryError(f"invalid summary at {where}: a second record of {name}")
        seen.add(name)
        for key in ("n", "m", "k", "flops"):
            value = record.get(key)
            if value is not None and value < 1:
                raise SummaryError(f"invalid summary at {where}.{key}: {value} is below 1")
        if (dtype := record.get("dtype")) not in DTYPE_ITEMSIZE:
            known = ", ".join(DTYPE_ITEMSIZE)
            raise SummaryError(f"invalid summary at {where}.dtype: {dtype!r} is not one of {known}")
        if record.get("status") != "ok":
            continue
        median, samples = record.get("median_s"), record.get("samples_s") or []
        if median is None or median <= 0:
            raise SummaryError(f"invalid summary at {where}.median_s: status ok without a speed")
        low, high = (min(samples), max(samples)) if samples else (median, median)
        if not low * (1 - 1e-9) <= median <= high * (1 + 1e-9):
            raise SummaryError(
                f"invalid summary at {where}.median_s: {median:g} s is outside its samples "
                f"({low:g}–{high:g} s)"
            )


CONDENSE_ABOVE = 16
"""Lists of numbers longer than this are condensed for validation (see :func:`condensed`)."""


def condensed(data: Any) -> Any:
    """``data`` with each long list of numbers replaced by a few representatives, for a fast
    schema check (validating millions of samples one by one takes minutes).

    The representatives are the smallest and the largest number and the first of each kind
    (int, integral float, other float): the schema's item checks (type number or integer,
    minimum, maximum) pass for every item exactly when they pass for these, and the schema
    puts no constraint on a list's length.  Other lists and dicts are walked.
    """
    if isinstance(data, dict):
        return {k: condensed(v) for k, v in data.items()}
    if not isinstance(data, list):
        return data
    if len(data) <= CONDENSE_ABOVE or not set(map(type, data)) <= {int, float}:
        return [condensed(x) for x in data]
    try:
        total: float = sum(data)
    except OverflowError:  # an int too large for a float
        total = math.nan
    numbers = data if total == total else [x for x in data if x == x]  # NaN left out
    picks = [min(numbers), max(numbers)] if numbers else []
    for kind in _KINDS:
        picks += [x for x in (next(filter(kind, data), None),) if x is not None]
    return picks


READABLE_VERSIONS = (1, 2, 3, 4)
"""Versions :meth:`RunSummary.load` reads (older ones are upgraded on load)."""


_KINDS: tuple[Callable[[Any], bool], ...] = (
    lambda x: type(x) is int,
    lambda x: type(x) is float and x.is_integer(),
    lambda x: type(x) is float and not x.is_integer(),  # NaN too
)
"""Kinds of number the schema tells apart (``integer`` takes 2 and 2.0, not 2.5)."""
