"""The worker's counting phase: exact events of a scenario's kernel at small sizes, scaled to
the timed n (after the timed samples: tracing would perturb them).
"""

from __future__ import annotations

from types import ModuleType

from overhead_tui.summary.measured import COUNTERS, EventsPerFma
from overhead_tui.worker.protocol import BytecodeLine, Counted, WorkerTask


def count_phase(module: ModuleType, task: WorkerTask) -> Counted:
    """The counting phase: exact events at small sizes, scaled to the timed n.

    Runs after the timed samples (tracing would perturb them), with fresh inputs per size;
    ``sys.settrace`` on 3.11, ``sys.monitoring`` from 3.12 (see ``counting.opcodes``).  A
    scenario that defines ``counted_kernel`` (called as ``kernel`` is) is counted on it: a
    compiled rung's Python twin (``worker.pybuild.python_twin``).
    """
    from overhead_tui.worker.counting.opcodes import METHOD, count_events
    from overhead_tui.worker.counting.scaling import COUNT_SIZES, extrapolate
    from overhead_tui.worker.inputs import make_inputs

    sizes = [s for s in COUNT_SIZES if s <= task.max_size]
    # a compiled rung's Python twin (the same source run as bytecode) where it has one
    counted = getattr(module, "counted_kernel", None)
    per_size = []
    for size in sizes:
        a, b = make_inputs(size, task.dtype, task.seed)
        args = module.setup(a, b)
        kernel = counted or module.kernel
        per_size.append(count_events(kernel, args if isinstance(args, tuple) else (args,)))
    n = task.n
    fmas = float(n) ** 3
    if len(sizes) < 4:
        per_fma = None
    else:
        counts = {
            f: extrapolate(sizes, [getattr(c, f) for c in per_size], n) / fmas for f in COUNTERS
        }
        opcodes = sorted({k for c in per_size for k in c.by_opcode})
        by_opcode = {
            k: extrapolate(sizes, [c.by_opcode.get(k, 0) for c in per_size], n) / fmas
            for k in opcodes
        }
        # the counts are per multiply-add at this n (extrapolated from sizes)
        per_fma = EventsPerFma(
            **counts,
            n=n,
            counted_sizes=sizes,
            by_opcode=by_opcode,
            python_twin=counted is not None,
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
