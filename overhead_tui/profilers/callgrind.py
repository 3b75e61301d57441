"""callgrind backend: deterministic instruction counts of exactly one kernel call.

valgrind runs the worker in ``mode: callgrind`` with ``--collect-atstart=no
--toggle-collect=starmap_next``: the worker makes two warm-up calls (JIT compilation,
specialisation, caches), then one kernel call through ``itertools.starmap``, and instructions
are collected only inside its ``__next__``.  callgrind 3.19 records *call counts* for every call
of an arc, collected or not (observed: three kernel calls' worth of ``PyFloat_FromDouble``
calls against one call's instructions), so float creations are the recorded calls divided by
the ``KERNEL_CALLS`` the worker made; kernels are deterministic, so each call creates the same
number.  Thread
pools are limited to one thread (see ``SINGLE_THREADED``): the instruction count is the
kernel's total work, whatever the thread count.
Instruction counts do not depend on the machine's load, so instructions per multiply-add
compare rungs exactly.  The same file gives the exact number of ``PyFloat_FromDouble`` calls:
every float created, including those the tracing counter cannot see.
"""

from __future__ import annotations

import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field, replace

from overhead_tui.engine.spawn import Cancel, worker_command, worker_env
from overhead_tui.profilers.capabilities import BackendJob, Capability, tool_version
from overhead_tui.profilers.layermap import classify, compiled_layer, library_name
from overhead_tui.profilers.outcome import run_writing
from overhead_tui.summary.profile import BackendResult, CallgrindResult, SymbolRow
from overhead_tui.worker.protocol import Done, WorkerTask

_NAMED = re.compile(r"^(c?(?:fn|ob))=\((\d+)\)(?: (.*))?$")
_COST = re.compile(r"^[+\-*]?\d*\s+(\d+)")
FLOAT_CONSTRUCTOR = "PyFloat_FromDouble"
KERNEL_CALLS = 3
"""Kernel calls the worker makes in ``mode: callgrind``: two warm-ups and the counted one."""
SINGLE_THREADED = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}
"""valgrind runs threads one at a time anyway; one thread per pool keeps idle pool threads
spinning from being counted as the kernel's instructions (counters are process-wide)."""


@dataclass
class CallgrindProfile:
    """Parsed callgrind output: total and per-function self instructions, call counts."""

    total: int = 0
    self_cost: dict[tuple[str, str], int] = field(default_factory=dict)
    """(function, object file) -> instructions executed in the function itself."""
    calls: dict[str, int] = field(default_factory=dict)
    """function -> times it was called (from ``calls=`` lines)."""


def parse_callgrind(text: str) -> CallgrindProfile:
    """Parse a callgrind output file (``events: Ir``, positions ``line``).

    Handles name compression (``fn=(12) name`` once, then ``fn=(12)``), the shared table of
    ``fn``/``cfn`` and of ``ob``/``cob``, and skips the inclusive cost line after ``calls=``.
    """
    names: dict[tuple[str, str], str] = {}
    profile = CallgrindProfile()
    self_cost: dict[tuple[str, str], int] = defaultdict(int)
    calls: dict[str, int] = defaultdict(int)
    fn = ob = cfn = ""
    totals: int | None = None
    summary = 0
    skip_next_cost = False
    for line in text.splitlines():
        named = _NAMED.match(line)
        if named:
            kind, ident, name = named.groups()
            table = "fn" if kind in ("fn", "cfn") else "ob"
            if name is not None:
                names[(table, ident)] = name
            value = names.get((table, ident), f"({ident})")
            if kind == "fn":
                fn = value
            elif kind == "ob":
                ob = value
            elif kind == "cfn":
                cfn = value
            continue
        if line.startswith("totals:"):  # this part's total ("summary:" is cumulative)
            totals = int(line.split()[1])
            continue
        if line.startswith("summary:"):
            summary = int(line.split()[1])
            continue
        if line.startswith("calls="):
            calls[cfn] += int(line.split("=")[1].split()[0])
            skip_next_cost = True
            continue
        cost = _COST.match(line)
        if cost:
            if skip_next_cost:
                skip_next_cost = False
            else:
                self_cost[(fn, ob)] += int(cost.group(1))
    profile.self_cost, profile.calls = dict(self_cost), dict(calls)
    profile.total = totals if totals is not None else summary
    return profile


def summarize(
    profile: CallgrindProfile, fmas: float, compiled_as: str, top: int = 25, n: int | None = None
) -> CallgrindResult:
    """Instructions per multiply-add, by layer and top symbols; exact floats per FMA (at
    matrix order ``n``)."""
    total = profile.total or sum(profile.self_cost.values()) or 1
    layers: dict[str, float] = {}
    rows: list[SymbolRow] = []
    for (fn, ob), cost in sorted(profile.self_cost.items(), key=lambda kv: -kv[1]):
        layer = classify(fn, ob)
        layer = compiled_as if layer == "compiled" else layer
        layers[layer] = layers.get(layer, 0.0) + cost / total
        if len(rows) < top:
            rows.append(SymbolRow(fn, library_name(ob), cost / total, layer, cost / fmas))
    return CallgrindResult(
        "ok",
        n=n,
        instructions=profile.total,
        instructions_per_fma=profile.total / fmas,
        floats_per_fma=profile.calls.get(FLOAT_CONSTRUCTOR, 0) / KERNEL_CALLS / fmas,
        layers=layers,
        top_symbols=tuple(rows),
    )


def profile(
    valgrind: str,
    python: str,
    task: WorkerTask,
    timeout_s: float,
    compiled_as: str,
    cancel: Cancel | None = None,
) -> BackendResult:
    """Run one kernel call under callgrind and return the backend's profile part."""
    worker = worker_command(python, replace(task, mode="callgrind"))
    flags = ["--tool=callgrind", "--collect-atstart=no", "--toggle-collect=starmap_next"]
    result, text = run_writing(
        "callgrind",
        "callgrind.out",
        lambda out: [valgrind, *flags, f"--callgrind-out-file={out}", *worker],
        timeout_s,
        {**worker_env(), **SINGLE_THREADED},
        cancel,
    )
    if result.timed_out:
        return BackendResult(
            "failed",
            reason=f"timed out after {timeout_s:g} s (JIT compilation under valgrind is "
            "slow; try a longer --timeout)",
        )
    if result.worker_error:
        return BackendResult("failed", reason=f"the scenario failed: {result.worker_error}")
    if "signal 4 (SIGILL)" in result.stderr:
        return BackendResult(
            "failed",
            reason="valgrind cannot execute an instruction of this rung (SIGILL): code built "
            "with -march=native uses AVX-512 or newer instructions this valgrind does not know",
            fix="profile it with perf, or at a valgrind release that supports the CPU's ISA",
        )
    if result.message(Done) is None or not text:
        tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
        return BackendResult("failed", reason=f"no callgrind output ({tail[:200]})")
    parsed = parse_callgrind(text)
    if parsed.total == 0:
        return BackendResult("failed", reason="callgrind counted no instructions in the kernel")
    n = task.n
    return summarize(parsed, float(n) ** 3, compiled_as, n=n)


def detect() -> Capability:
    """valgrind's callgrind tool (instruction counts)."""
    path = shutil.which("valgrind")
    if path is None:
        return Capability(
            "callgrind", False, reason="valgrind is not installed", fix="apt-get install valgrind"
        )
    return Capability("callgrind", True, tool_version([path, "--version"]), path=path)


CALLGRIND_MAX_N = 24
"""Largest n callgrind runs at: it executes about 50× slower and counts one call exactly."""


def run(job: BackendJob) -> BackendResult:
    """The registry's entry: count the worker under callgrind at n ≤ :data:`CALLGRIND_MAX_N`."""
    small = replace(job.worker, n=min(job.n, CALLGRIND_MAX_N))
    return profile(
        str(job.cap.path), job.python, small, job.timeout_s, compiled_layer(job.spec), job.cancel
    )
