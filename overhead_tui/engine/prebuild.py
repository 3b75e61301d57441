"""Build every module a run compiles before anything of it is timed, several at a time.

A cold run compiles its C, C++, Cython, mypyc, Pythran and Nuitka rungs and the probes'
kernels (a mypyc and a Cython module among them).  Built in the timed workers, one at a time,
they cost a cold default set about 27 s on a 2-vCPU Zen 3 (2026-12-07: ``cython_typed``
7.6 s, ``container_access``'s mypyc module about 7 s, ``boxing``'s Cython module about 4 s).
Here each is built by a worker of its own (``build`` and ``build_probe`` tasks: the
scenario's ``setup`` on tiny inputs, the probe's ``prepare()``), :func:`usable_cpus` at once,
before the first probe or rung is timed; nothing is timed while they build, and the timed
workers then load each from the build cache.  A build that fails here is reported by the
timed worker that needs it, with its fix (the rung is skipped or fails as without this
step); a warm cache costs one worker start per module.
"""

from __future__ import annotations

from collections.abc import Generator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Literal

from overhead_tui.engine.events import BuildStarted
from overhead_tui.engine.plan import rung_dtype
from overhead_tui.engine.spawn import (
    Cancel,
    CommandResult,
    run_command,
    worker_command,
    worker_env,
)
from overhead_tui.kit.probing import usable_cpus
from overhead_tui.plugins.probes import ProbeSpec
from overhead_tui.plugins.scenarios import ScenarioSpec
from overhead_tui.summary.records import Settings
from overhead_tui.worker.protocol import Build as BuildMessage
from overhead_tui.worker.protocol import Error, WorkerTask, worker_task

BUILD_TIMEOUT_S = 120.0
"""Seconds one build worker may take by default, as a timed worker (a run passes its own
``--timeout``; a cold Nuitka module takes 20–25 s on 2 vCPUs)."""


@dataclass(frozen=True)
class BuildJob:
    """One module to build: the scenario or probe it is for, and the worker task that builds
    it."""

    name: str
    task: WorkerTask


def builds(
    specs: list[ScenarioSpec], settings: Settings, probes: list[ProbeSpec]
) -> list[BuildJob]:
    """What a run builds first: each selected scenario that compiles a module (``builds``),
    at the dtype it will run at, unless that dtype is not one it supports (it is skipped
    then), and each probe to be measured that compiles one (``builds``: its ``prepare()``)."""
    found = [
        BuildJob(p.name, worker_task("build_probe", p, seed=settings.seed))
        for p in probes
        if p.builds
    ]
    for spec in specs:
        dtype = rung_dtype(spec, settings)
        if spec.builds and dtype in spec.dtypes:
            found.append(BuildJob(spec.name, worker_task("build", spec, dtype=dtype,
                                                      seed=settings.seed)))  # fmt: skip
    return found


BuildOutcome = Literal[
    "built", "cached", "prepared", "unavailable", "timed_out", "stopped", "failed"
]
"""What a build worker did (the ``prebuilt`` line of ``log.jsonl``): compiled its rung's
module, found it in the cache, ran a probe's ``prepare()``, found the rung cannot run here (no
such CPU feature, a missing tool: the timed worker says so), ran past the run's ``--timeout``,
was stopped (Ctrl-C), or failed (the timed worker builds it again and reports why)."""


def build_outcome(result: CommandResult) -> BuildOutcome:
    """What the build worker that gave ``result`` did (:data:`BuildOutcome`)."""
    if result.returncode == 0:
        if (built := result.message(BuildMessage)) is None:
            return "prepared"
        return "cached" if built.info.cached else "built"
    error = result.message(Error)
    if error is not None and error.cause in ("unavailable", "missing_dependency"):
        return "unavailable"
    if result.timed_out:
        return "timed_out"
    if result.returncode is None or result.returncode < 0:
        return "stopped"
    return "failed"


def prebuild(
    wanted: list[BuildJob],
    python: str,
    cancel: Cancel,
    jobs: int | None = None,
    timeout_s: float = BUILD_TIMEOUT_S,
) -> Generator[BuildStarted, None, dict[str, CommandResult]]:
    """Build ``wanted`` with ``python``'s workers, ``jobs`` at once (default: the CPUs this
    process may run on), each killed after ``timeout_s``, yielding ``BuildStarted`` as each
    starts; returns each worker's result by name (an unfinished one is missing when
    ``cancel`` was set: it kills them)."""
    jobs = max(1, jobs or usable_cpus())
    done: dict[str, CommandResult] = {}
    if not wanted:
        return done
    env = worker_env()
    queue = list(wanted)
    running: dict[Future[CommandResult], str] = {}
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="prebuild") as pool:
        started = 0
        while queue or running:
            while queue and len(running) < jobs and not cancel.is_set():
                build = queue.pop(0)
                argv = worker_command(python, build.task)
                running[pool.submit(run_command, argv, timeout_s, env, cancel)] = build.name
                yield BuildStarted(build.name, started, len(wanted), jobs)
                started += 1
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                done[running.pop(future)] = future.result()
    return done
