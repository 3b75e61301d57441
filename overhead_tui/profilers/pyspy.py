"""py-spy backend: sampled Python stacks with native frames, parsed from collapsed output.

``py-spy record --native -f raw`` launches the worker as its child (ptrace parent -> child).
Its exit code and summary line are unreliable (py-spy #759, #717), so success is judged by the
worker's own events and a parseable output file.  Stacks are kept only when they pass through
the worker's ``profile_loop`` frame: imports, set-up and JIT compilation are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from overhead_tui.engine.spawn import Cancel, worker_command, worker_env
from overhead_tui.profilers.capabilities import (
    BackendJob,
    Capability,
    find_tool,
    read_setting,
    tool_version,
)
from overhead_tui.profilers.layermap import library_name
from overhead_tui.profilers.outcome import (
    NO_PYSPY_SAMPLES,
    profiled_per_call_s,
    run_failure,
    run_writing,
)
from overhead_tui.summary.codec import IN_MEMORY
from overhead_tui.summary.profile import BackendResult, FrameRow, PyspyResult
from overhead_tui.worker.protocol import WorkerTask

RATE_HZ = 200
"""Sampling rate passed to py-spy (samples per second)."""
LOOP_FRAME = "profile_loop"
"""The worker function whose descendants are the kernel's samples."""
_LABEL = re.compile(r"^(.*) \((.*?)(?::(\d+))?\)$")


@dataclass(frozen=True)
class Frame:
    """One stack frame: Python (file ends in .py) or native (a shared object or address)."""

    name: str
    file: str = ""
    line: int | None = None

    @property
    def native(self) -> bool:
        """True for C/C++/JIT frames (not a Python source file)."""
        return not self.file.endswith(".py") and not self.file.startswith(
            ("<frozen", "<thread", "<process")
        )

    @property
    def label(self) -> str:
        """``name (file:line)`` as py-spy writes it; unsymbolised natives grouped by library."""
        if self.native and self.name.startswith("0x"):
            return f"[{library_name(self.file) or 'unknown'}]"
        if self.line is not None:
            return f"{self.name} ({self.file}:{self.line})"
        return f"{self.name} ({self.file})" if self.file else self.name


Stack = tuple[list[Frame], int]
"""One collapsed stack: its frames (root first) and how many samples it had."""


@dataclass(frozen=True)
class PyspySamples(PyspyResult):
    """py-spy's part of a profile with its kernel stacks, kept in memory for the stack
    exports (``export.stacks``) and never written to the profile JSON."""

    stacks: tuple[Stack, ...] = field(default=(), compare=False, repr=False, metadata=IN_MEMORY)


def parse_frame(text: str) -> Frame:
    """Parse one py-spy frame label (anchored at the end: names contain spaces and parens).

    Synthetic root frames (``thread (TID)``, ``thread (TID): Name``, ``process PID:"cmd"``)
    are kept whole, with the file ``<thread>`` or ``<process>``.
    """
    if text.startswith(("thread (", "process ")):
        return Frame(text, "<thread>" if text.startswith("thread") else "<process>")
    match = _LABEL.match(text)
    if not match:
        return Frame(text)
    name, file, line = match.groups()
    return Frame(name, file, int(line) if line else None)


def parse_collapsed(text: str) -> list[tuple[list[Frame], int]]:
    """Parse collapsed stacks (``root;...;leaf COUNT`` per line, root first).

    Accepts empty stacks (a line that is only `` 1``), thread and process root frames, and
    frames whose text contains spaces, parentheses and ``<locals>``.
    """
    stacks = []
    for line in text.splitlines():
        if not line.strip():
            continue
        stack, _, count = line.rpartition(" ")
        try:
            n = int(count)
        except ValueError:
            continue
        frames = [parse_frame(f) for f in stack.split(";") if f] if stack.strip() else []
        stacks.append((frames, n))
    return stacks


def kernel_stacks(stacks: list[tuple[list[Frame], int]]) -> list[tuple[list[Frame], int]]:
    """Stacks below ``profile_loop`` (that frame and its callers removed)."""
    kept = []
    for frames, count in stacks:
        names = [f.name for f in frames]
        if LOOP_FRAME in names:
            kept.append((frames[names.index(LOOP_FRAME) + 1 :], count))
    return kept


def summarize(stacks: list[tuple[list[Frame], int]], top: int = 25) -> PyspyResult:
    """Samples, native share (leaf frame native) and a top-N self/total time table."""
    total = sum(c for _, c in stacks)
    self_time: dict[str, int] = {}
    total_time: dict[str, int] = {}
    native = 0
    for frames, count in stacks:
        if not frames:
            continue
        leaf = frames[-1]
        native += count if leaf.native else 0
        self_time[leaf.label] = self_time.get(leaf.label, 0) + count
        for label in {f.label for f in frames}:
            total_time[label] = total_time.get(label, 0) + count
    rows = sorted(self_time.items(), key=lambda kv: -kv[1])[:top]
    return PyspyResult(
        "ok",
        samples=total,
        native_fraction=native / total if total else None,
        top_frames=tuple(FrameRow(label, n / total, total_time[label] / total) for label, n in rows)
        if total
        else (),
    )


def profile(
    pyspy: str, python: str, task: WorkerTask, timeout_s: float, cancel: Cancel | None = None
) -> BackendResult:
    """Run the worker under ``py-spy record --native`` and return the backend's profile part."""
    worker = worker_command(python, task)
    flags = ["record", "--native", "-r", str(RATE_HZ), "-f", "raw"]
    result, text = run_writing(
        "pyspy",
        "stacks.txt",
        lambda out: [pyspy, *flags, "-o", str(out), "--", *worker],
        timeout_s,
        worker_env(),
        cancel,
    )
    if failure := run_failure(result, "py-spy"):
        return BackendResult("failed", reason=failure)
    stacks = kernel_stacks(parse_collapsed(text))
    if not stacks:
        return BackendResult("failed", reason=NO_PYSPY_SAMPLES)
    errors = re.search(r"Errors: (\d+)", result.stderr + result.stdout)
    summary = summarize(stacks)
    return PyspySamples(
        "ok",
        native=True,  # --native: C, BLAS and JIT frames are named
        samples=summary.samples,
        native_fraction=summary.native_fraction,
        top_frames=summary.top_frames,
        errors=int(errors.group(1)) if errors else None,
        profiled_per_call_s=profiled_per_call_s(result),
        stacks=tuple(stacks),
    )


def detect() -> Capability:
    """py-spy, launching the worker as its child (ptrace parent -> child)."""
    path = find_tool("py-spy")
    if path is None:
        return Capability(
            "pyspy", False, reason="py-spy is not installed", fix="pip install py-spy"
        )
    scope = read_setting("/proc/sys/kernel/yama/ptrace_scope")
    if scope is not None and int(scope) >= 2:
        return Capability(
            "pyspy",
            False,
            tool_version([path, "--version"]),
            f"ptrace_scope is {scope}: only root may trace",
            "sudo sysctl kernel.yama.ptrace_scope=1",
            path,
        )
    return Capability("pyspy", True, tool_version([path, "--version"]), path=path)


def run(job: BackendJob) -> BackendResult:
    """The registry's entry: profile ``worker`` under py-spy."""
    return profile(str(job.cap.path), job.python, job.worker, job.timeout_s, job.cancel)
