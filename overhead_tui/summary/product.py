"""A matrix product's sizes, C (m×n) = A (m×k)·B (k×n): the floating-point operations it does
and the memory a worker needs for it.  Plain arithmetic, so the parent (its plans, its checks
of a request) and the worker share it without importing numpy."""

from __future__ import annotations

from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE


def flops_of(n: int, m: int | None = None, k: int | None = None) -> int:
    """Floating-point operations of C (m×n) = A (m×k)·B (k×n): 2·m·k·n (``m``, ``k``
    default to ``n``: 2n³)."""
    return 2 * (n if m is None else m) * (n if k is None else k) * n


def estimated_bytes(n: int, dtype: str, m: int | None = None, k: int | None = None) -> int:
    """Upper estimate of the memory one worker needs at order ``n`` (bytes); with ``m`` and
    ``k``, for the m × k times k × n product (the largest of the three matrices counts thrice).

    Counts A, B and C in ``dtype``, the float64 reference and its |A|·|B| bound (4 × 8 bytes
    per element), and a Python-object representation of A, B and C (lists of float objects:
    an 8-byte pointer plus a 24-byte float per element, CPython 3.11 ``sys.getsizeof(1.0)``).
    """
    per_element = 3 * DTYPE_ITEMSIZE[dtype] + 4 * 8 + 3 * (8 + 24)
    mm, kk = (n if m is None else m), (n if k is None else k)
    return max(mm * kk, kk * n, mm * n) * per_element
