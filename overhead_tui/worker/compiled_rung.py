"""What a ladder worker measures of a compiled rung besides its samples: one iteration of its
hot loop, read from its own assembly (``worker.hotloop``), and its kernel timed again at its
own n with A and B resident in L1 (every page of them the same physical page:
``kit.pages.resident_inputs``).  Both feed
the compiled-rung model (``analysis.compiled``).

Standard library and numpy only (the worker's import rule).
"""

from __future__ import annotations

from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING

from overhead_tui.kit.pages import resident_inputs
from overhead_tui.summary.measured import BuildInfo, GeneratedCode, ResidentTiming
from overhead_tui.summary.vocabulary import PRECISION_FAMILIES
from overhead_tui.worker.protocol import WorkerTask

if TYPE_CHECKING:
    import mmap

    from overhead_tui.worker.inputs import Matrix


def time_resident(
    module: ModuleType, task: WorkerTask, a: Matrix | None = None, b: Matrix | None = None
) -> ResidentTiming | None:
    """The rung's kernel timed at its own n with A and B resident in L1
    (:func:`resident_inputs`), after its samples and in the same worker: the same code, loops
    and trip counts as the timed run, without its memory traffic for A and B.  The
    compiled-rung model measures the memory hierarchy's cost against it.  Then, given the
    run's own ``a`` and ``b``, the same kernel on copies of them on fresh 2 MiB pages
    (:func:`huge_page_inputs`), so 64-byte aligned (a C rung's C follows A).  The rung's time
    beyond that is the cost of where the allocator put its arrays: vector accesses split
    across two cache lines, TLB misses.  Arrays the rung's set-up copied
    are swapped for the new ones.  None when the inputs cannot be made resident or the set-up
    fails with them (never an error)."""
    if task.m is not None or task.k is not None or task.dtype not in ("float64", "float32"):
        return None
    inputs = resident_inputs(task.n, task.dtype)
    if inputs is None:
        return None
    samples = _timed_with(module, task, inputs)
    if samples is None:
        return None
    timing = ResidentTiming(task.n, mmap_page(), samples)
    huge = huge_page_inputs(a, b) if a is not None and b is not None else None
    if huge is None:
        return timing
    arrays, share = huge
    huge_samples = _timed_with(module, task, arrays)
    if huge_samples is not None:
        timing = replace(timing, huge_page_samples_s_per_fma=huge_samples, huge_page_share=share)
    return _with_spread(module, task, timing)


LINE_BYTES = 64
"""Bytes of a cache line on every x86-64 and Arm core of the corpus (sysfs
``coherency_line_size``, ``tests/fixtures/cpus``)."""


def spreading_order(n: int, itemsize: int) -> int | None:
    """The nearest order above ``n`` whose row is an odd number of cache lines, or None where
    ``n``'s row is not a whole even number of lines.  A column walked with a row stride of
    an even number of lines reaches only the L1 sets that number's power-of-two factor
    leaves (n = 384 doubles, 48 lines: 4 of 64 sets, 32 lines of capacity for a 384-line
    column); an odd number reaches every set (Hennessy and Patterson, set-associative
    placement).  Measured on a Zen 3 (2026-12-07): the ijk loop at n = 384 ran 1.44 ns/FMA,
    its column walk over a transposed B 0.86, and n = 200 (25 lines) 0.89."""
    row = n * itemsize
    if row % LINE_BYTES or (row // LINE_BYTES) % 2:
        return None
    m = n + 1
    while (m * itemsize) % LINE_BYTES or (m * itemsize // LINE_BYTES) % 2 == 0:
        m += 1
    return m


def _with_spread(module: ModuleType, task: WorkerTask, timing: ResidentTiming) -> ResidentTiming:
    """``timing`` with the kernel timed at :func:`spreading_order` on fresh inputs of that
    order (None of it where the rung's rows already spread, or its set-up refuses the order)."""
    import numpy as np

    order = spreading_order(task.n, np.dtype(task.dtype).itemsize)
    if order is None:
        return timing
    rng = np.random.default_rng(0)
    a, b = (rng.random((order, order)).astype(task.dtype) for _ in range(2))
    samples = _timed_with(module, task, (a, b), order)
    if samples is None:
        return timing
    return replace(timing, spread_n=order, spread_samples_s_per_fma=samples)


def _timed_with(
    module: ModuleType, task: WorkerTask, inputs: tuple[Matrix, Matrix], order: int | None = None
) -> list[float] | None:
    """Seconds per multiply-add of up to ``RESIDENT_SAMPLES`` samples (three once they agree
    within 1 %: ``kit.probing.settled``, as a probe's timings stop) of the rung's kernel set up on
    ``inputs`` (A, B, of ``order``: the run's n by default) instead of the run's; None when its
    set-up or kernel fails with them, or its set-up makes lists or tuples of them (a kernel
    over Python objects reads the objects the allocator placed, never the pages of ``inputs``:
    ``cython_untyped`` on a Zen 3, 2026-12-07, ran 25 % faster on fresh lists made from the
    copies in one run and 3 % slower in the next, a timing of nothing the copies control)."""
    import numpy as np

    from overhead_tui.kit.probing import settled
    from overhead_tui.kit.timing import RESIDENT_SAMPLES, calibrate, time_calls

    try:
        args = module.setup(*inputs)
        args = list(args if isinstance(args, tuple) else (args,))
        if any(isinstance(arg, (list, tuple)) for arg in args):
            return None  # boxed objects: where the allocator put them, not these pages
        waiting = list(inputs)
        for index, arg in enumerate(args):  # copies the set-up made: the given ones instead
            copied = isinstance(arg, np.ndarray) and arg.shape == inputs[0].shape
            if copied and waiting and not any(np.shares_memory(arg, x) for x in inputs):
                args[index] = waiting.pop(0)
        warm_s, _ = time_calls(module.kernel, tuple(args), 1)
        loops, _ = calibrate(module.kernel, tuple(args), warm_s, task.min_sample_s)
        samples: list[float] = []
        while len(samples) < RESIDENT_SAMPLES and not settled(samples):
            samples.append(time_calls(module.kernel, tuple(args), loops)[0])
    except Exception:
        return None
    return [s / (order or task.n) ** 3 for s in samples]


HUGE_PAGE = 2 * 1024 * 1024
"""Bytes of an x86-64 transparent huge page (a PMD mapping; Linux ``HPAGE_PMD_SIZE``)."""


def huge_page_inputs(a: Matrix, b: Matrix) -> tuple[tuple[Matrix, Matrix], float] | None:
    """Copies of A and B in anonymous memory aligned to 2 MiB and advised ``MADV_HUGEPAGE``,
    and the share of their bytes the kernel really put on huge pages: ``AnonHugePages`` of
    their mappings in ``/proc/self/smaps`` (the second method: advice is not a guarantee).
    None where transparent huge pages are off, not granted to most of the bytes (under half),
    or not Linux."""
    import mmap

    import numpy as np

    if not hasattr(mmap, "MADV_HUGEPAGE"):
        return None
    copies, maps = [], []
    try:
        for source in (a, b):
            size = -(-source.nbytes // HUGE_PAGE) * HUGE_PAGE
            region = mmap.mmap(-1, size + HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            start = -_address(region) % HUGE_PAGE
            region.madvise(mmap.MADV_HUGEPAGE, start, size)
            array = np.frombuffer(region, dtype=source.dtype, count=source.size, offset=start)
            array = array.reshape(source.shape)
            array[...] = source  # first touch: faulted in on huge pages where granted
            copies.append(array)
            maps.append((_address(region) + start, source.nbytes))
    except (OSError, ValueError):
        return None
    share = sum(_huge_bytes(base, length) for base, length in maps) / sum(n for _, n in maps)
    return ((copies[0], copies[1]), share) if share >= 0.5 else None


def _address(region: mmap.mmap) -> int:
    """The address of an ``mmap`` object's first byte."""
    import ctypes

    return ctypes.addressof(ctypes.c_char.from_buffer(region))


def _huge_bytes(base: int, length: int, text: str | None = None) -> int:
    """Bytes of [base, base + length) on transparent huge pages per ``text`` (default: this
    process's ``/proc/self/smaps``; 0 when it cannot be read): each mapping overlapping the
    range counts its ``AnonHugePages`` in proportion to the overlap."""
    if text is None:
        try:
            with open("/proc/self/smaps") as smaps:
                text = smaps.read()
        except OSError:
            return 0
    total, overlap = 0.0, 0
    for line in text.splitlines():
        head = line.split()[0] if line else ""
        if "-" in head and not head.endswith(":"):
            low, high = (int(x, 16) for x in head.split("-"))
            overlap = max(0, min(high, base + length) - max(low, base))
            span = high - low
        elif head == "AnonHugePages:" and overlap:
            total += int(line.split()[1]) * 1024 * overlap / span
    return int(total)


def mmap_page() -> int:
    """The page size the resident inputs are built of (bytes)."""
    import mmap

    return mmap.PAGESIZE


PYTHON_COMPILERS = ("Cython", "mypyc", "Pythran")
"""The ``compiler`` of a build by ``kit.pybuild``: its module's assembly is read, not made."""


def generated_code(module: ModuleType, dtype: str, n: int | None = None) -> GeneratedCode | None:
    """One iteration of a compiled rung's hot loop (``worker.hotloop.hot_loop``), before
    its samples: a C rung's ``SOURCE`` compiled with its ``FLAGS`` to assembly (``cc -S``,
    cached; a Mojo rung's, ``mojo build --emit asm``, kept by its build), or the assembly of
    the numba functions its kernel compiled.  None for other
    rungs, for code that is not x86, or when the assembly cannot be had (never an error).
    With ``n`` (a square run), a C rung's loop nest is counted at it too
    (``worker.loop_nest``; not a Mojo rung's: that count compiles C)."""
    from overhead_tui.kit.cbuild import built_assembly
    from overhead_tui.worker.hotloop import hot_loop

    nest = None
    try:
        built = rung_build(module, getattr(module, "NAME", ""))
        kept = built_assembly(built) if built is not None else None
        if built is not None and built.compiler in PYTHON_COMPILERS:
            if (asm := kept) is None:
                return None
            method = f"gcc's assembly of the {built.compiler}-built module (-save-temps)"
        elif callable(getattr(module, "generated_assembly", None)):
            # a rung whose machine code another compiler made (XLA): (assembly, how it was had)
            found_asm = module.generated_assembly()
            if found_asm is None:
                return None
            asm, method = found_asm
        elif isinstance(getattr(module, "SOURCE", None), str) and hasattr(module, "FLAGS"):
            from overhead_tui.kit.cbuild import assembly

            # -g: the .loc lines name the hot loop's source line (the same code: gcc's debug
            # information does not change what it generates)
            language = str(getattr(module, "LANGUAGE", "C"))
            cc = {"C++": "c++", "Mojo": "mojo"}.get(language, "cc")
            if kept is not None:  # the assembly its own build kept (cbuild.KEEP_ASSEMBLY)
                asm, method = kept, f"{cc}'s assembly of the rung's build"
            elif language == "Mojo":  # its build keeps it (kit.mojobuild); no C to compile
                return None
            else:
                asm = assembly(module.SOURCE, [*module.FLAGS, "-g"], dtype, language)
                method = f"{cc} -S of the rung's source with its flags"
            if n is not None and language != "Mojo":  # the nest is counted in C (loop_nest)
                from overhead_tui.worker.loop_nest import count_loops

                link = list(getattr(module, "LINK_FLAGS", []))
                nest = count_loops(module.SOURCE, list(module.FLAGS), link, dtype, n, language)
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
    return replace(found, method=method, loop_nest=nest) if found.fp_instructions else None


def rung_build(module: ModuleType, name: str) -> BuildInfo | None:
    """How rung ``name`` (its ``module``) was built in this worker: the kit's record
    (``kit.builds``), else the ``BUILD_INFO`` dict a file written before it filled; None for a
    rung that built nothing."""
    from overhead_tui.kit.builds import build_of, record_build

    built = build_of(name)
    if built is None and (legacy := getattr(module, "BUILD_INFO", None)):
        built = record_build(name, legacy)
    return built
