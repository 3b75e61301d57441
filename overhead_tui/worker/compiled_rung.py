"""What a ladder worker measures of a compiled rung besides its samples: one iteration of its
hot loop, read from its own assembly (``worker.hotloop``), and its kernel timed again at its
own n with A and B resident in L1 (every page of them the same physical page).  Both feed
the compiled-rung model (``analysis.compiled``).

Standard library and numpy only (the worker's import rule).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from overhead_tui.summary.measured import GeneratedCode, ResidentTiming
from overhead_tui.summary.vocabulary import PRECISION_FAMILIES
from overhead_tui.worker.protocol import WorkerTask

RESIDENT_VALUE = 1e-3
"""The value every element of the resident inputs holds (sums of n products stay normal)."""


def resident_inputs(n: int, dtype: str) -> tuple[Any, Any] | None:
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


def time_resident(module: Any, task: WorkerTask) -> ResidentTiming | None:
    """The rung's kernel timed at its own n with A and B resident in L1
    (:func:`resident_inputs`), after its samples and in the same worker: the same code, loops
    and trip counts as the timed run, without its memory traffic for A and B.  The
    compiled-rung model measures the memory hierarchy's cost against it.  Arrays the rung's
    set-up copied are swapped for the resident ones.  None when the inputs cannot be made
    resident or the set-up fails with them (never an error)."""
    import numpy as np

    from overhead_tui.worker.timing import RESIDENT_SAMPLES, calibrate, time_calls

    if task.m is not None or task.k is not None or task.dtype not in ("float64", "float32"):
        return None
    inputs = resident_inputs(task.n, task.dtype)
    if inputs is None:
        return None
    try:
        args = module.setup(*inputs)
        args = list(args if isinstance(args, tuple) else (args,))
        waiting = list(inputs)
        for index, arg in enumerate(args):  # copies the set-up made: the resident ones instead
            copied = isinstance(arg, np.ndarray) and arg.shape == inputs[0].shape
            if copied and waiting and not any(np.shares_memory(arg, x) for x in inputs):
                args[index] = waiting.pop(0)
        warm_s, _ = time_calls(module.kernel, tuple(args), 1)
        loops, _ = calibrate(module.kernel, tuple(args), warm_s, task.min_sample_s)
        samples = [
            time_calls(module.kernel, tuple(args), loops)[0] for _ in range(RESIDENT_SAMPLES)
        ]
    except Exception:
        return None
    return ResidentTiming(task.n, mmap_page(), [s / task.n**3 for s in samples])


def mmap_page() -> int:
    """The page size the resident inputs are built of (bytes)."""
    import mmap

    return mmap.PAGESIZE


PYTHON_COMPILERS = ("Cython", "mypyc", "Pythran")
"""The ``compiler`` of a build by ``worker.pybuild``: its module's assembly is read, not made."""


def generated_code(module: Any, dtype: str) -> GeneratedCode | None:
    """One iteration of a compiled rung's hot loop (``worker.hotloop.hot_loop``), before
    its samples: a C rung's ``SOURCE`` compiled with its ``FLAGS`` to assembly (``cc -S``,
    cached), or the assembly of the numba functions its kernel compiled.  None for other
    rungs, for code that is not x86, or when the assembly cannot be had (never an error)."""
    from overhead_tui.worker.hotloop import hot_loop

    try:
        built = getattr(module, "BUILD_INFO", None) or {}
        if built.get("compiler") in PYTHON_COMPILERS:
            from overhead_tui.worker.pybuild import built_assembly

            if (asm := built_assembly(built)) is None:
                return None
            method = f"gcc's assembly of the {built['compiler']}-built module (-save-temps)"
        elif callable(getattr(module, "generated_assembly", None)):
            # a rung whose machine code another compiler made (XLA): (assembly, how it was had)
            found_asm = module.generated_assembly()
            if found_asm is None:
                return None
            asm, method = found_asm
        elif isinstance(getattr(module, "SOURCE", None), str) and hasattr(module, "BUILD_INFO"):
            from overhead_tui.worker.cbuild import assembly

            asm = assembly(module.SOURCE, list(module.FLAGS), dtype)
            method = "cc -S of the rung's source with its flags"
        else:
            jitted = [
                f for f in vars(module).values() if hasattr(f, "inspect_asm") and f.signatures
            ]
            if not jitted:
                return None
            asm = "\n".join(f.inspect_asm(sig) for f in jitted for sig in f.signatures)
            method = "numba inspect_asm of the compiled functions"
    except Exception:  # the rung still runs; its breakdown falls back to the peak
        return None
    found = hot_loop(asm, PRECISION_FAMILIES.get(dtype, ()))
    return replace(found, method=method) if found.fp_instructions else None
