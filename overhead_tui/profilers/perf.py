"""perf backend: ``perf record -e cpu-clock -g``, then self time per symbol and library.

The software ``cpu-clock`` event samples on a timer, so it works in virtual machines without
hardware counters.  The worker enables and disables the events itself through perf's control
FIFO (``--control fifo:CTL,ACK`` with ``-D -1``: start disabled), so only the repeated kernel
calls are sampled, never the imports, set-up or JIT compilation.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from overhead_tui.engine.spawn import Cancel, run_command, worker_command, worker_env
from overhead_tui.profilers.capabilities import (
    BackendJob,
    Capability,
    find_tool,
    read_setting,
    tool_version,
)
from overhead_tui.profilers.layermap import classify, compiled_layer, library_name
from overhead_tui.profilers.outcome import profiled_per_call_s, run_failure
from overhead_tui.summary.profile import BackendResult, PerfResult, SymbolRow
from overhead_tui.worker.protocol import WorkerTask

_REPORT_LINE = re.compile(r"^\s*([0-9.]+)%\s+(.+?)\s+\[(.)\]\s+(.*?)\s*$")


@dataclass(frozen=True)
class SymbolShare:
    """One symbol's share of the samples (self time)."""

    symbol: str
    library: str
    fraction: float
    layer: str


def parse_report(text: str) -> list[SymbolShare]:
    """Parse ``perf report --stdio --no-children --sort dso,sym -g none`` output.

    Lines look like ``    79.84%  libpython3.11.so.1.0  [.] _PyEval_EvalFrameDefault``; the
    shared object may contain spaces (``[JIT] tid 25179`` for perf-map JIT code);
    comments, call-graph lines and ``<not supported>`` noise are skipped.  ``[k]`` marks kernel
    symbols.  Fractions are of all samples (0..1).
    """
    shares = []
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = _REPORT_LINE.match(line)
        if not match:
            continue
        percent, dso, kind, symbol = match.groups()
        library = "[kernel]" if kind == "k" else dso
        shares.append(
            SymbolShare(
                symbol, library_name(library), float(percent) / 100, classify(symbol, library)
            )
        )
    return shares


def layer_fractions(shares: list[SymbolShare], compiled_as: str) -> dict[str, float]:
    """Fractions per layer, with the ``compiled`` pseudo-layer renamed to ``compiled_as``."""
    total = sum(s.fraction for s in shares) or 1.0
    layers: dict[str, float] = {}
    for share in shares:
        layer = compiled_as if share.layer == "compiled" else share.layer
        layers[layer] = layers.get(layer, 0.0) + share.fraction / total
    return layers


def profile(
    perf: str,
    python: str,
    task: WorkerTask,
    timeout_s: float,
    compiled_as: str = "scalar_compute",
    cancel: Cancel | None = None,
) -> BackendResult:
    """Run the worker under perf and return the backend's part of the profile (JIT code
    counted as the layer ``compiled_as``)."""
    with tempfile.TemporaryDirectory(prefix="overhead-perf-") as tmp:
        data = Path(tmp) / "perf.data"
        ctl, ack = Path(tmp) / "ctl", Path(tmp) / "ack"
        os.mkfifo(ctl)
        os.mkfifo(ack)
        worker = worker_command(python, replace(task, perf_control=f"{ctl},{ack}"))
        record = run_command(
            [
                perf,
                "record",
                "-e",
                "cpu-clock",
                "-g",
                "-D",
                "-1",
                "--control",
                f"fifo:{ctl},{ack}",
                "-o",
                str(data),
                "--",
                *worker,
            ],
            timeout_s,
            worker_env(),
            cancel,
        )
        failure = run_failure(record, "perf")
        if failure is None and (not data.exists() or data.stat().st_size == 0):
            failure = "perf wrote no data file"
        if failure:
            return BackendResult("failed", reason=failure)
        report = run_command(
            [
                perf,
                "report",
                "-i",
                str(data),
                "--stdio",
                "--no-children",
                "--sort",
                "dso,sym",
                "-g",
                "none",
                "--percent-limit",
                "0",
            ],
            timeout_s,
            cancel=cancel,
        )
    shares = parse_report(report.stdout)
    if not shares:
        return BackendResult("failed", reason="perf report found no samples")
    samples = re.search(r"# Samples: (\S+)", report.stdout)
    return PerfResult(
        "ok",
        samples=samples.group(1) if samples else None,
        layers=layer_fractions(shares, compiled_as),
        top_symbols=tuple(SymbolRow(s.symbol, s.library, s.fraction, s.layer) for s in shares[:40]),
        profiled_per_call_s=profiled_per_call_s(record),
    )


def detect() -> Capability:
    """perf with the cpu-clock software event (works in VMs without hardware counters)."""
    path = find_tool("perf")
    if path is None:
        return Capability(
            "perf",
            False,
            reason="perf is not installed",
            fix="apt-get install linux-perf (Debian) or linux-tools-$(uname -r)",
        )
    version = tool_version([path, "--version"])
    if version is None:
        return Capability(
            "perf",
            False,
            reason="perf does not run for this kernel",
            fix="install the linux-perf package matching the kernel",
            path=path,
        )
    paranoid = read_setting("/proc/sys/kernel/perf_event_paranoid")
    import os

    if paranoid is not None and int(paranoid) > 2 and os.geteuid() != 0:
        return Capability(
            "perf",
            False,
            version,
            f"perf_event_paranoid is {paranoid} (> 2)",
            "sudo sysctl kernel.perf_event_paranoid=2",
            path,
        )
    return Capability("perf", True, version, path=path)


def run(job: BackendJob) -> BackendResult:
    """The registry's entry: profile the worker under perf (JIT code: its compute layer)."""
    layer = compiled_layer(job.spec)
    return profile(str(job.cap.path), job.python, job.worker, job.timeout_s, layer, job.cancel)
