"""Seeded input matrices: the same A and B for every rung at a given (n, dtype, seed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # numpy.typing only for the checker: any numpy imports this module
    from numpy.typing import NDArray

    Matrix = NDArray[np.generic]
    """An input or result matrix of the run's dtype (which is known only at run time)."""


def make_inputs(
    n: int, dtype: str, seed: int, m: int | None = None, k: int | None = None
) -> tuple[Matrix, Matrix]:
    """Return A (``m × k``) and B (``k × n``), C-contiguous arrays of ``dtype``, uniform in
    [-1, 1); ``m`` and ``k`` default to ``n`` (the square product of the ladder).

    They are drawn in float64 from ``numpy.random.default_rng(seed)`` and then cast, so a
    float32 run sees the rounded float64 matrices of the same seed.  numpy has no bfloat16:
    a ``bfloat16`` run gets float32 arrays holding values exactly representable in bfloat16
    (:func:`to_bfloat16`; a rung takes their upper 16 bits).  ``int8``: integers uniform in
    [-128, 127] from the same generator (int32 accumulation is exact up to n = 131,071).
    """
    m = n if m is None else m
    k = n if k is None else k
    rng = np.random.default_rng(seed)
    if dtype == "int8":
        ints = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
        return np.ascontiguousarray(ints), rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    a = rng.uniform(-1.0, 1.0, size=(m, k))
    b = rng.uniform(-1.0, 1.0, size=(k, n))
    if dtype == "bfloat16":
        return to_bfloat16(a), to_bfloat16(b)
    return np.ascontiguousarray(a, dtype=dtype), np.ascontiguousarray(b, dtype=dtype)


def to_bfloat16(x: Matrix) -> Matrix:
    """``x`` rounded to bfloat16 (round to nearest, ties to even, as ``vcvtneps2bf16`` does),
    as a C-contiguous float32 array whose low 16 bits are zero."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(BFLOAT16)


BFLOAT16 = np.dtype(np.float32, metadata={"dtype": "bfloat16"})
"""The numpy dtype of a bfloat16 run's inputs: binary32 storage that names itself bfloat16
(:func:`dtype_name`), so a rung's ``setup`` can tell a bfloat16 run from a float32 one."""


def dtype_name(x: Matrix) -> str:
    """The run's dtype of an input array: ``bfloat16`` for :data:`BFLOAT16` arrays, else
    numpy's name (``float64``, ``float32``, ``float16``, ``int8``)."""
    metadata: Mapping[str, object] = x.dtype.metadata or {}
    return str(metadata.get("dtype", x.dtype.name))
