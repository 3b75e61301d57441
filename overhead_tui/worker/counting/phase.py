"""The worker's counting phase: exact events of a scenario's kernel at small sizes, scaled to
the timed n (after the timed samples: tracing would perturb them).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING

from overhead_tui.summary.measured import COUNTERS, BytecodeLine, EventsPerFma, NumpyOperations
from overhead_tui.summary.vocabulary import INT_RESULT_OPS
from overhead_tui.worker.protocol import Counted, WorkerTask

if TYPE_CHECKING:
    from overhead_tui.worker.counting.opcodes import EventCounts
    from overhead_tui.worker.counting.site_costs import SiteTiming


def count_phase(module: ModuleType, task: WorkerTask) -> Counted:
    """The counting phase: exact events at small sizes, scaled to the timed n.

    Runs after the timed samples (tracing would perturb them), with fresh inputs per size;
    ``sys.settrace`` on 3.11, ``sys.monitoring`` from 3.12 (see ``counting.opcodes``).  A
    scenario that defines ``counted_kernel`` (called as ``kernel`` is) is counted on it: a
    compiled rung's Python twin (``kit.pybuild.python_twin``).
    """
    from overhead_tui.worker.counting.opcodes import METHOD, count_events
    from overhead_tui.worker.counting.scaling import COUNT_SIZES, extrapolate
    from overhead_tui.worker.counting.site_costs import site_costs, time_sites
    from overhead_tui.worker.counting.site_timing import loop_dispatch_ns, reference_samples
    from overhead_tui.worker.counting.small_ints import made_share

    sizes = [s for s in COUNT_SIZES if s <= task.max_size]
    # a compiled rung's Python twin (the same source run as bytecode) where it has one
    counted = getattr(module, "counted_kernel", None)
    timing = counted is None and task.model  # the sites of C work, for the model to price
    per_size = []
    censuses = []
    census_sites: set[tuple[str, int]] = set()  # where the census saw priced numpy work
    dispatch_ns = loop_dispatch_ns() if timing else 0.0
    for size in sizes:
        kernel = counted or module.kernel
        per_size.append(count_events(kernel, _inputs(module, size, task), sites=timing))
        if per_size[-1].builtin_calls > per_size[-1].numpy_calls:  # builtins may loop in C
            c_calls, c_floats = _c_level(module, kernel, size, task)
            per_size[-1] = replace(per_size[-1], c_calls=c_calls, c_floats=c_floats)
        # numpy work: calls, generic instructions on its objects, or a site of its (whose calls
        # inside numpy's own Python, np.einsum's c_einsum, are its site's, not counted here)
        found_numpy = any(site.numpy for site, _ in per_size[-1].sites)
        if counted is None and (
            per_size[-1].numpy_calls or per_size[-1].numpy_scalars or found_numpy
        ):
            found = _numpy_census(module, size, task, census_sites)
            if found is not None:
                censuses.append(found)
    reference = reference_samples() if timing else []  # the machine's speed, like the samples'
    # and for this code itself, where it has sites to bring to the samples' speed
    kernel_call = _kernel_call(module, task) if timing and any(c.sites for c in per_size) else None
    beside = _kernel_beside(kernel_call) if kernel_call is not None else []
    call = kernel_call if beside and beside[0] <= SITE_KERNEL_MAX_S else None
    timings = time_sites([c.sites for c in per_size], dispatch_ns, call) if timing else []
    if beside and kernel_call is not None:
        beside += _kernel_beside(kernel_call)
    n = task.n
    fmas = float(n) ** 3
    kernel = counted or module.kernel
    exact = _exact_at_n(module, kernel, task, sizes, per_size, timing, dispatch_ns, call)
    per_fma = None
    if exact is not None or len(sizes) >= 4:
        if exact is not None:  # its counts are no cubic of n: counted at n itself
            events, timed = exact
            counts = {f: getattr(events, f) / fmas for f in COUNTERS}
            by_opcode = {k: v / fmas for k, v in events.by_opcode.items()}
            counted_sizes, sites = [*sizes, n], site_costs([sizes[0], n], timed, n)
        else:  # the counts per multiply-add at this n, extrapolated from the sizes
            counts = {
                f: extrapolate(sizes, [getattr(c, f) for c in per_size], n) / fmas for f in COUNTERS
            }
            opcodes = sorted({k for c in per_size for k in c.by_opcode})
            by_opcode = {
                k: extrapolate(sizes, [c.by_opcode.get(k, 0) for c in per_size], n) / fmas
                for k in opcodes
            }
            counted_sizes, sites = sizes, site_costs(sizes, timings, n)
        int_sizes = [n] if exact is not None else sizes
        int_counts = (
            [exact[0].int_results] if exact is not None else [c.int_results for c in per_size]
        )
        last_ints = (exact[0] if exact is not None else per_size[-1]).by_opcode
        made = made_share(
            int_sizes, int_counts, sum(last_ints.get(k, 0) for k in INT_RESULT_OPS), n
        )
        complete = len(censuses) == len(sizes)
        sites = [
            replace(s, census_priced=complete and (s.code, s.offset) in census_sites)
            if s.numpy
            else s
            for s in sites
        ]
        per_fma = EventsPerFma(
            **counts,
            n=n,
            counted_sizes=counted_sizes,
            by_opcode=by_opcode,
            numpy_operations=_operations(sizes, censuses, n) if complete else [],
            sites=sites if timing else None,
            site_reference_ns=[*reference, *(reference_samples() if timing else [])] or None,
            python_twin=counted is not None,
            site_kernel_s=beside or None,
            int_made_share=made,
        )
    last, last_fmas = per_size[-1], float(sizes[-1]) ** 3
    bytecode = tuple(
        BytecodeLine(
            code,
            offset,
            op,
            arg,
            count / last_fmas,
            last.fused.get((code, offset), 0) / last_fmas,
        )
        for code, offset, op, arg, count in last.instructions
    )
    return Counted(tuple(sizes), per_fma, bytecode, sizes[-1], METHOD)


def wants_reference(counted: Counted, task: WorkerTask) -> bool:
    """Whether a rung the plan did not ask to time the reference loop for (by its declared
    layers) runs bytecode after all: the model will scale its interpreted rows to its own
    worker's speed, so the worker times the loop after counting."""
    from overhead_tui.summary.measured import INTERPRETED_DISPATCHES

    per_fma = counted.per_fma
    runs_bytecode = per_fma is not None and per_fma.dispatches >= INTERPRETED_DISPATCHES
    return task.model and not task.reference_dispatch and runs_bytecode


CHECK_SIZE = 24
"""A fifth size, beyond the counted ones, the cubic through them must predict (dispatches
within :data:`CUBIC_TOLERANCE`): a kernel whose work is no cubic of n (it recurses down to a
base case, pads to a power of two, works in blocks of 16) fails it.  A size between them
(14) missed the blocked kernel of the blind corpus: its cubic holds inside 8–20 and fails
beyond (28 dispatches per multiply-add foreseen at n = 64, 19.9 counted)."""
CUBIC_TOLERANCE = 0.02
EXACT_MAX = 96
"""The largest timed n such a kernel is counted at directly; above it the cubic is kept and
the miss is the breakdown's to show."""
EXACT_BUDGET_S = 60.0
"""The most tracing that count at n may take, foreseen from the check size's count × (n /
:data:`CHECK_SIZE`)³, which overstates a padded kernel's (a recursive kernel at n = 64 padded
from 24 to 32: 10–15 s on a 2-vCPU Zen 3, foreseen over 30 s in a busy run); half the worker's
default timeout."""


def _exact_at_n(
    module: ModuleType,
    kernel: Callable[..., object],
    task: WorkerTask,
    sizes: list[int],
    per_size: list[EventCounts],
    sites: bool,
    dispatch_ns: float,
    call: Callable[[], float | None] | None = None,
) -> tuple[EventCounts, list[dict[tuple[str, int], SiteTiming]]] | None:
    """(events, timed sites) counted at the timed n, for a kernel whose counts the cubic does
    not predict at :data:`CHECK_SIZE`; None where the cubic holds (or n is out of reach).
    ``call``: times the kernel once after each site (``site_costs.time_sites``)."""
    from overhead_tui.worker.counting.opcodes import count_events
    from overhead_tui.worker.counting.scaling import extrapolate
    from overhead_tui.worker.counting.site_costs import time_sites

    n = task.n
    if len(sizes) < 4 or not (CHECK_SIZE < n <= EXACT_MAX) or task.max_size < CHECK_SIZE:
        return None
    started = time.perf_counter()
    check = count_events(kernel, _inputs(module, CHECK_SIZE, task)).dispatches
    foreseen = (time.perf_counter() - started) * (n / CHECK_SIZE) ** 3
    predicted = extrapolate(sizes, [c.dispatches for c in per_size], CHECK_SIZE)
    if abs(predicted - check) <= CUBIC_TOLERANCE * max(check, 1) or foreseen > EXACT_BUDGET_S:
        return None
    events = count_events(kernel, _inputs(module, n, task), sites=sites)
    if events.builtin_calls > events.numpy_calls:
        c_calls, c_floats = _c_level(module, kernel, n, task)
        events = replace(events, c_calls=c_calls, c_floats=c_floats)
    if not sites:
        return events, []
    # timed at the smallest size too: a numpy call's fixed cost is read where its loop is short
    return events, time_sites([per_size[0].sites, events.sites], dispatch_ns, call)


def _operations(
    sizes: list[int], censuses: list[dict[tuple[str, str, float], int]], n: int
) -> list[NumpyOperations]:
    """The census of each counted size, extrapolated to ``n`` per multiply-add.

    A call touching E elements at size s is E = c·sᵈ (d the nearest integer power, c the rest:
    1 for n² on float64, 0.5 for float32); calls of one (kind, operation, d, c) are counted at
    each size and extrapolated as the events are, and touch c·nᵈ elements at ``n``.
    """
    from overhead_tui.worker.counting.scaling import extrapolate, power_law

    grouped: dict[tuple[str, str, int, float], list[float]] = {}
    for i, (size, found) in enumerate(zip(sizes, censuses, strict=True)):
        for (kind, operation, elements), calls in found.items():
            power, factor = power_law(size, elements)
            grouped.setdefault((kind, operation, power, factor), [0.0] * len(sizes))[i] += calls
    fmas = float(n) ** 3
    return [
        NumpyOperations(
            kind=kind,
            operation=operation,
            calls_per_fma=extrapolate(sizes, calls, n) / fmas,
            elements=factor * float(n) ** power,
        )
        for (kind, operation, power, factor), calls in sorted(grouped.items())
    ]


KERNEL_BESIDE_MAX_S = 0.2
"""The longest kernel call timed beside the sites (``EventsPerFma.site_kernel_s``): a slower
kernel's calls would cost the ladder more than the scale gains."""
KERNEL_BESIDE_BUDGET_S = 0.03
"""Seconds of kernel calls timed on each side of the sites' timings (at least one call)."""


def _kernel_beside(call: Callable[[], float | None]) -> list[float]:
    """Seconds per call of the kernel at the timed n (``call``: :func:`_kernel_call`; its code
    is warm from the samples), calls added until :data:`KERNEL_BESIDE_BUDGET_S` is spent (at
    most 50); [] when a call takes longer than :data:`KERNEL_BESIDE_MAX_S` or fails."""
    times: list[float] = []
    while sum(times) < KERNEL_BESIDE_BUDGET_S and len(times) < 50:
        seconds = call()
        if seconds is None or seconds > KERNEL_BESIDE_MAX_S:
            return []
        times.append(seconds)
    return times


SITE_KERNEL_MAX_S = 0.05
"""The longest kernel call timed once after each site (``SiteCost.kernel_s``): a dozen sites
of a slower kernel would cost the ladder seconds; those keep the scale of the calls around
all the sites (``site_kernel_s``)."""


def _kernel_call(module: ModuleType, task: WorkerTask) -> Callable[[], float | None]:
    """Times one call of the kernel at the timed n on inputs made once (None when it fails)."""
    args = _inputs(module, task.n, task)

    def call() -> float | None:
        try:
            start = time.perf_counter()
            module.kernel(*args)
            return time.perf_counter() - start
        except Exception:
            return None

    return call


def _inputs(module: ModuleType, size: int, task: WorkerTask) -> tuple[object, ...]:
    """Fresh arguments of the kernel at ``size`` (a counting pass may write into them)."""
    from overhead_tui.worker.inputs import make_inputs

    args = module.setup(*make_inputs(size, task.dtype, task.seed))
    return args if isinstance(args, tuple) else (args,)


def _c_level(
    module: ModuleType, kernel: Callable[..., object], size: int, task: WorkerTask
) -> tuple[int, int]:
    """(builtins called from C, floats they made) of one call at ``size``; (0, 0) when the
    kernel fails under the recording ``map`` (its events were counted without it)."""
    from overhead_tui.worker.counting.builtin_census import c_level_calls

    try:
        return c_level_calls(kernel, _inputs(module, size, task))
    except Exception:
        return 0, 0


def _numpy_census(
    module: ModuleType, size: int, task: WorkerTask, where: set[tuple[str, int]]
) -> dict[tuple[str, str, float], int] | None:
    """The numpy operations of one call at ``size`` (``where`` gets the instructions that
    made them); None when the kernel refuses a subclass of ndarray (the rung keeps its
    bytecode model; the timed run is never touched)."""
    from overhead_tui.worker.counting.numpy_census import census

    try:
        return census(module.kernel, _inputs(module, size, task), where)
    except Exception:
        return None
