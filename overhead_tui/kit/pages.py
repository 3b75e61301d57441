"""Matrices whose every page is one physical page: the compiled-rung model's L1-resident copies
of A and B (``worker.compiled_rung.time_resident``), and the ``scalar_fma`` probe's check of
whether such copies are L1 hits on this CPU.

Standard library and numpy only (the worker's import rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

RESIDENT_VALUE = 1e-3
"""The value every element of the resident inputs holds (sums of n products stay normal)."""


def resident_inputs(n: int, dtype: str) -> tuple[NDArray[np.generic], NDArray[np.generic]] | None:
    """A and B (n × n, ``dtype``) whose every page is the same physical page: the kernel walks
    the addresses of its own n, with every load an L1 hit (the L1 is indexed by the address's
    page offset and tagged by its physical page).  None where the pages cannot be aliased
    (no ``memfd_create`` or ``mmap``: not Linux)."""
    import ctypes
    import mmap
    import os

    import numpy as np

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]  # fmt: skip
        page = mmap.PAGESIZE
        count = n * n
        pages = -(-count * np.dtype(dtype).itemsize // page)
        fd = os.memfd_create("overhead-resident")
    except (AttributeError, OSError):
        return None
    try:
        os.ftruncate(fd, page)
        arrays = []
        for _ in range(2):
            base = libc.mmap(None, pages * page, 0, mmap.MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            if base in (None, MAP_FAILED):
                return None
            for i in range(pages):
                spot = base + i * page
                if libc.mmap(spot, page, PROT_RW, mmap.MAP_SHARED | MAP_FIXED, fd, 0) != spot:
                    return None
            buffer = (ctypes.c_char * (pages * page)).from_address(base)
            view = memoryview(buffer).cast("B")
            arrays.append(np.frombuffer(view, dtype=dtype, count=count).reshape(n, n))
        arrays[0].flat[: page // np.dtype(dtype).itemsize] = RESIDENT_VALUE  # the one page
        return arrays[0], arrays[1]
    finally:
        os.close(fd)


MAP_ANONYMOUS, MAP_FIXED, MAP_FAILED, PROT_RW = 0x20, 0x10, 2**64 - 1, 0x3
"""Linux's mmap flags (``<sys/mman.h>``; ``mmap`` has no MAP_FIXED) and PROT_READ|PROT_WRITE."""
