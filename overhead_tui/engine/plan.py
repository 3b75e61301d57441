"""What a run will do before it starts: sizes, order, run directory and the planned summary."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from overhead_tui.engine.results import machine_blas, new_result
from overhead_tui.engine.spawn import (
    same_interpreter,
)
from overhead_tui.machine.host import (
    describe_machine,
)
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import RunSummary, Settings, created_now, tool_stamp
from overhead_tui.summary.vocabulary import FLOAT_DTYPES
from overhead_tui.worker.protocol import WorkerTask, worker_task


def size_for(spec: ScenarioSpec, settings: Settings) -> int:
    """The matrix order a scenario runs at: ``settings.size`` or the scenario's default."""
    return settings.size if settings.size is not None else spec.default_size


def is_rectangular(settings: Settings, n: int) -> bool:
    """True when ``settings`` ask for A (m×k)·B (k×n) with m or k other than ``n``."""
    return (settings.m or n) != n or (settings.k or n) != n


def planned_summary(
    specs: list[ScenarioSpec], settings: Settings, run_dir: Path | None = None
) -> RunSummary:
    """A summary listing ``specs`` as not yet run (what the app shows before a run starts).

    The machine line is filled from this process's own facts (numpy, BLAS) when the workers
    run on this interpreter; the first worker's ``environment`` event replaces them.
    """
    machine = describe_machine()
    if _same_interpreter(settings.python):  # the workers will load this very numpy and BLAS
        import numpy

        from overhead_tui.worker.main import blas_info

        machine.numpy_version = numpy.__version__
        machine.blas = machine_blas(blas_info(), "numpy's default in this process (no worker yet)")
    return RunSummary(
        machine=machine,
        settings=settings,
        created=created_now(),
        tool=tool_stamp(),
        run_dir=str(run_dir) if run_dir is not None else None,
        scenarios=[
            new_result(s, size_for(s, settings), rung_dtype(s, settings), settings.m, settings.k)
            for s in specs
        ],
    )


def _same_interpreter(python: str | None) -> bool:
    """True when workers run on this process's own interpreter *and packages* (a venv's python
    is the same file as its base's: see :func:`~overhead_tui.engine.spawn.same_interpreter`)."""
    return python is None or same_interpreter(python, sys.executable)


def run_order(specs: list[ScenarioSpec]) -> list[int]:
    """Indices of ``specs`` in the order they run: dense kernels first, then as given.

    The dense kernel is the reference of every "× dense"; measured first, each later rung's
    ratio is known the moment its own result lands.
    """
    return sorted(range(len(specs)), key=lambda i: (not specs[i].dense_kernel, i))


EVAL_LOOP_PROCESSES = 3
"""Worker processes whose samples are pooled for a rung that carries ``interpreter_dispatch``
(when the probes run: its breakdown compares it with them).  A CPython loop's speed depends
on its process's memory layout (where the allocator put the boxed floats and the lists), so
one process can run the same loop measurably slower than another; pyperf spawns many worker
processes for the same reason.  Measured here (2-vCPU Zen 5 VM, 2026-12-01): python_zip_sum
took 50.0–59.0 ms per call in six single-worker runs while the reference loop timed in the
same workers stayed within 1.11–1.31 ns/dispatch.  Three processes, each with a share of the
samples, cost about 0.45 s of start-up, calibration and warm-up per extra worker (a pooled
rung's wall time went from about 1.0 to 1.9 s)."""


def compared_with_probes(spec: ScenarioSpec, settings: Settings) -> bool:
    """True when ``spec``'s breakdown compares it with the eval-loop probes: it carries
    ``interpreter_dispatch`` and the probes run: it runs in :data:`EVAL_LOOP_PROCESSES`
    workers.  (Every rung's workers time the dispatch probe's reference loop beside their
    samples when the probes run.)"""
    return settings.probes and "interpreter_dispatch" in spec.layers


def worker_repeats(spec: ScenarioSpec, settings: Settings) -> list[int]:
    """The samples each of a rung's worker processes takes, in order (their sum is
    ``settings.repeats``): the scenario's own ``PROCESSES`` when it declares them, else one
    worker for most rungs and :data:`EVAL_LOOP_PROCESSES` for a rung carrying
    ``interpreter_dispatch`` when the probes run; the first takes the larger share
    (7 → [3, 2, 2]).  The first worker alone counts events."""
    repeats = settings.repeats
    default = EVAL_LOOP_PROCESSES if compared_with_probes(spec, settings) else 1
    wanted = spec.processes or default
    processes = max(1, min(repeats, wanted))
    share, extra = divmod(repeats, processes)
    return [share + (1 if i < extra else 0) for i in range(processes)]


@dataclass(frozen=True)
class RungPlan:
    """What the runner executes for one rung, decided before it starts: its order ``n`` and
    the tasks of its worker processes in order (:func:`worker_repeats`; the first alone
    counts events), or why it does not run here (``skip``, then no workers)."""

    name: str
    n: int
    workers: tuple[WorkerTask, ...]
    skip: str | None = None


def rung_dtype(spec: ScenarioSpec, settings: Settings) -> str:
    """The dtype ``spec``'s rung computes in a run: the run's own; in a float64 or float32 run,
    a rung that computes neither (a matrix-engine rung: ``c_amx_tiles``, ``c_avx512_dot``,
    ``numpy_matmul_own_loops``) computes its own first dtype beside the others, so one ladder
    spans pure Python to the matrix engine without a change of dtype.  Its row is marked with
    its dtype; "× dense" and "× Python" are blank across dtypes (its GFLOP/s is not theirs)."""
    if settings.dtype in spec.dtypes:
        return settings.dtype
    if settings.dtype in FLOAT_DTYPES and not set(spec.dtypes) & set(FLOAT_DTYPES):
        return spec.dtypes[0]
    return settings.dtype


def rung_plan(spec: ScenarioSpec, settings: Settings, n: int) -> RungPlan:
    """The plan of ``spec``'s rung at order ``n`` under ``settings`` (at its own dtype:
    :func:`rung_dtype`)."""
    dtype = rung_dtype(spec, settings)
    if dtype not in spec.dtypes:
        why = (
            f"does not support {settings.dtype} (supports {', '.join(spec.dtypes)}; "
            f"run it with --dtype {spec.dtypes[0]})"
        )
        return RungPlan(spec.name, n, (), skip=why)
    rectangular = is_rectangular(settings, n)  # A (m×k)·B (k×n); opcode counts assume n³
    if rectangular and not spec.shapes:
        why = (
            f"does not support non-square shapes (m={settings.m or n}, k={settings.k or n}, "
            f"n={n}): it does not declare SHAPES = True"
        )
        return RungPlan(spec.name, n, (), skip=why)
    tasks = (
        worker_task(
            "run",
            spec,
            n=n,
            dtype=dtype,
            seed=settings.seed,
            repeats=repeats,
            min_sample_s=settings.min_sample_s,
            max_size=spec.max_size,
            # like with like: the interpreter's speed of the moment, in the rung's own worker
            # every rung's workers time the reference loop beside their samples: whether its
            # code runs bytecode (a Python twin, a kernel that declares no dispatch) is
            # known only once it is counted, after them
            reference_dispatch=settings.probes,
            model=settings.probes,
            m=settings.m if rectangular else None,
            k=settings.k if rectangular else None,
            count=index == 0 and not rectangular,
        )
        for index, repeats in enumerate(worker_repeats(spec, settings))
    )
    return RungPlan(spec.name, n, tuple(tasks))
