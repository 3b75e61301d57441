"""Validation of a scenario's result against a float64 numpy reference.

The tolerance is the standard forward error bound of a dot product computed in floating point
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1 and §3.5):
``|C − Ĉ| ≤ γ_n |A||B|`` with ``γ_n = n·u / (1 − n·u)`` and ``u`` the unit roundoff of the
dtype.  It holds for any summation order, so it admits blocked BLAS and fastmath
reassociation, and rejects a wrong kernel: an error of one term of the sum is far larger.
We also allow the rounding of the inputs and of the stored result (one more ``u`` each).

The lower precisions (:data:`UNIT_ROUNDOFF`): ``float16`` is bounded with binary16's u
(numpy's float16 loops and AVX-512 FP16 FMAs may accumulate in binary16; an fp32 accumulation
is inside that bound too).  ``bfloat16`` inputs are exact bfloat16 values whose products are
exact in binary32 (8 × 8 significand bits), and every bf16 instruction (``vdpbf16ps``, AMX
``tdpbf16ps``) accumulates in binary32 and the result is stored in binary32: binary32's u.
``int8`` accumulates exactly in int32: the result must equal the reference.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from overhead_tui.worker.inputs import Matrix

UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11,
                 "bfloat16": 2.0**-24}  # fmt: skip
"""u of the arithmetic each dtype's product is bounded with (module docstring: bfloat16 is
accumulated and stored in binary32, so binary32's u)."""
EXACT_DTYPES = frozenset({"int8"})
"""Dtypes whose product must equal the float64 reference exactly (int32 accumulation)."""


@dataclass(frozen=True)
class Validation:
    """Outcome of comparing a result with the reference."""

    ok: bool
    max_abs_error: float
    """Largest |C − C_ref| over all elements (absolute, in the matrix's units)."""
    tolerance: float
    """The bound at the element with the largest error ratio."""
    reason: str = ""


def validate(result: Any, a: Matrix, b: Matrix, dtype: str) -> Validation:
    """Compare ``result`` with ``a @ b`` computed in float64.

    Args:
        result: the scenario's result converted to a numpy array, shape (n, m).
        a, b: the inputs (n × p and p × m) in the run's dtype.
        dtype: the run's dtype; sets the unit roundoff u.
    """
    try:
        c = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        return Validation(False, float("inf"), 0.0, f"result is not numeric: {exc}")
    expected_shape = (a.shape[0], b.shape[1])
    if c.shape != expected_shape:
        return Validation(
            False, float("inf"), 0.0, f"result has shape {c.shape}, expected {expected_shape}"
        )
    if not np.all(np.isfinite(c)):
        return Validation(False, float("inf"), 0.0, "result contains NaN or infinity")
    a64 = a.astype(np.float64)
    b64 = b.astype(np.float64)
    reference = a64 @ b64
    magnitude = np.abs(a64) @ np.abs(b64)
    if dtype in EXACT_DTYPES:
        error = np.abs(c - reference)
        worst = np.unravel_index(int(np.argmax(error)), error.shape)
        ok = bool(error[worst] == 0)
        reason = (
            ""
            if ok
            else (
                f"element {tuple(int(i) for i in worst)} is off by {error[worst]:.3g} "
                "(integer accumulation must be exact)"
            )
        )
        return Validation(ok, float(error.max()), 0.0, reason)
    u = UNIT_ROUNDOFF[dtype]
    p = a.shape[1]
    gamma = (p + 2) * u / (1 - (p + 2) * u)
    bound = gamma * magnitude + np.finfo(np.float64).tiny
    error = np.abs(c - reference)
    ratio = error / bound
    worst = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    ok = bool(ratio[worst] <= 1.0)
    reason = (
        ""
        if ok
        else (
            f"element {tuple(int(i) for i in worst)} is off by {error[worst]:.3g} "
            f"(tolerance {bound[worst]:.3g})"
        )
    )
    return Validation(ok, float(error.max()), float(bound[worst]), reason)
