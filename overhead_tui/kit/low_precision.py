"""The lower-precision C rungs' shared ABI (``c_avx512_dot``, ``c_amx_tiles``): one exported
``matmul_lowp`` per rung, inputs padded to the tiles' block, and room for B in the
instruction's packed layout.  Built with :func:`overhead_tui.kit.cbuild.build`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from overhead_tui.kit.builds import record_build, split_legacy
from overhead_tui.kit.cbuild import Unavailable, build

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

LOW_PRECISION = {"bfloat16": 0, "float16": 1, "int8": 2}
"""The dtype code a lower-precision C rung's ``matmul_lowp`` takes."""
LOW_PRECISION_CDEF = (
    "int matmul_lowp(int dtype, const void *a, const void *b, void *c, void *work, "
    "int m, int k, int n);"
)
"""What a lower-precision C rung exports: C = A·B on row-major M × K and K × N matrices
padded to :data:`LOW_PRECISION_BLOCK` (bfloat16 and float16 as their 16-bit patterns, int8
as bytes), C in binary32 (bfloat16), binary16 (float16) or int32 (int8); ``work`` is room for
B in the instruction's packed layout (filled inside the call: packing is part of the timed
product, as in a BLAS); returns 0, or -1 for a dtype it does not compute."""
LOW_PRECISION_BLOCK = 64
"""Every dimension is padded with zeros to a multiple of this (the AMX tiles' 64-byte rows)."""


def bfloat16_bits(x: object) -> object:
    """The bfloat16 bit patterns (uint16 array) of a float32 array holding bfloat16 values
    (``worker.inputs.to_bfloat16``)."""
    import numpy as np

    return np.ascontiguousarray(
        (np.asarray(x, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)
    )


def prepare_low_precision(*args: Any) -> tuple[Any, ...]:
    """A lower-precision C rung's ``setup``: ``prepare_low_precision(NAME, SOURCE, FLAGS, a,
    b, dtype[, cdef_extra])`` builds it (recorded in ``kit.builds``; a file written before the
    build record passes its ``BUILD_INFO`` dict first), pads A and B to
    :data:`LOW_PRECISION_BLOCK`, and return the kernel's arguments (``cdef_extra``: more C
    declarations the rung exports, e.g. AMX's permission request) (lib, dtype code, pointers,
    the padded C, (m, n), the padded sizes, the padded arrays kept alive).

    Raises:
        Unavailable: ``dtype`` is not one of :data:`LOW_PRECISION`.
    """
    import numpy as np

    legacy, (name, source, flags, a, b, dtype, *extra) = split_legacy(args)
    cdef_extra = extra[0] if extra else ""
    if dtype not in LOW_PRECISION:
        raise Unavailable(f"{name} computes {', '.join(LOW_PRECISION)} only, not {dtype}")
    ffi, lib, info = build(name, source, flags, "float32", cdef=LOW_PRECISION_CDEF + cdef_extra)
    record_build(name, info)
    legacy.update(info)
    m, k = a.shape
    n = b.shape[1]

    def padded(x: Any, rows: int, cols: int, kind: Any) -> Any:
        out = np.zeros((rows, cols), dtype=kind)
        out[: x.shape[0], : x.shape[1]] = x
        return out

    up = LOW_PRECISION_BLOCK
    big_m, big_k, big_n = (-(-d // up) * up for d in (m, k, n))
    if dtype == "bfloat16":
        a, b = bfloat16_bits(a), bfloat16_bits(b)
    storage = {"bfloat16": np.uint16, "float16": np.float16, "int8": np.int8}[dtype]
    out = {"bfloat16": np.float32, "float16": np.float16, "int8": np.int32}[dtype]
    pa = padded(a, big_m, big_k, storage)
    pb = padded(b, big_k, big_n, storage)
    c = np.zeros((big_m, big_n), dtype=out)
    # packed B and A (AMX), or packed B and B's column sums (VNNI)
    work = np.zeros(big_k * (big_n + big_m) * 4 + big_n * 4, dtype=np.uint8)
    views = [ffi.from_buffer("char[]", x) for x in (pa, pb, c, work)]
    return lib, LOW_PRECISION[dtype], *views, c, (m, n), (big_m, big_k, big_n), (pa, pb, work)


class LowPrecisionLibrary(Protocol):
    """A lower-precision rung's library as cffi calls it (:data:`LOW_PRECISION_CDEF`)."""

    def matmul_lowp(
        self, dtype: int, a: object, b: object, c: object, work: object, m: int, k: int, n: int, /
    ) -> int: ...


def low_precision_matmul(
    lib: LowPrecisionLibrary, code: int, pa: object, pb: object, pc: object, pw: object,
    c: NDArray[np.generic], shape: tuple[int, int], big: tuple[int, int, int],
    keep: tuple[NDArray[np.generic], ...],
) -> NDArray[np.generic]:  # fmt: skip
    """A lower-precision C rung's ``kernel``: one call; returns the m × n corner of the
    padded C (a view: no copy)."""
    if lib.matmul_lowp(code, pa, pb, pc, pw, *big) != 0:
        raise RuntimeError("the rung's matmul_lowp does not compute this dtype")
    return c[: shape[0], : shape[1]]
