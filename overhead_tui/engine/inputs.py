"""Seeded input matrices: the same A and B for every rung at a given (n, dtype, seed)."""

from __future__ import annotations

from typing import Any

import numpy as np

from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE


def make_inputs(n: int, dtype: str, seed: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Return A and B, both ``n × n`` C-contiguous arrays of ``dtype``, uniform in [-1, 1).

    They are drawn in float64 from ``numpy.random.default_rng(seed)`` and then cast, so a
    float32 run sees the rounded float64 matrices of the same seed.
    """
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1.0, 1.0, size=(n, n))
    b = rng.uniform(-1.0, 1.0, size=(n, n))
    return np.ascontiguousarray(a, dtype=dtype), np.ascontiguousarray(b, dtype=dtype)


def estimated_bytes(n: int, dtype: str) -> int:
    """Upper estimate of the memory one worker needs at order ``n`` (bytes).

    Counts A, B and C in ``dtype``, the float64 reference and its |A|·|B| bound (4 × 8 bytes
    per element), and a Python-object representation of A, B and C (lists of float objects:
    an 8-byte pointer plus a 24-byte float per element, CPython 3.11 ``sys.getsizeof(1.0)``).
    """
    per_element = 3 * DTYPE_ITEMSIZE[dtype] + 4 * 8 + 3 * (8 + 24)
    return n * n * per_element


def available_memory_bytes() -> int | None:
    """``MemAvailable`` from /proc/meminfo (bytes), or None where it is not available."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None
