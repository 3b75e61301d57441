"""``overhead-tui machine``: the CPU model, its theoretical peaks and the measured limits."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

from overhead_tui.commands.command import Command
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.probe_runs import load_probes
from overhead_tui.export import write_failure
from overhead_tui.machine.cpu import CpuModel, read_cpu_model
from overhead_tui.machine.limits import machine_limits
from overhead_tui.present.format import (
    FACT_CHECK_HEADER,
    PRECISION_HEADER,
    aligned_lines,
    fact_check_rows,
    precision_rows,
    vector_clock_text,
)
from overhead_tui.summary.codec import to_json
from overhead_tui.summary.limits import MachineLimits
from overhead_tui.summary.units import fmt_number

HELP = "print the CPU model, theoretical peaks and measured limits"
DESCRIPTION = (
    "The CPU (vendor, cores, ISA, SIMD width, FMA units from a "
    "micro-architecture table with sources), the theoretical peak as a formula at the "
    "measured and the nominal clock, and the measured compute peak and memory bandwidth "
    "(from the probes, measured once per machine)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``machine``."""
    parser.add_argument(
        "--json", type=Path, metavar="PATH", help="also write them as JSON (- : to stdout)"
    )


def run(args: argparse.Namespace) -> int:
    """Print the machine model and limits.

    Raises:
        UsageError: ``--json`` names a folder, or a file that cannot be written (checked
            before anything is measured).
    """
    to_stdout = args.json is not None and str(args.json) == "-"
    if not to_stdout:
        check_export_paths({"--json": args.json})
    cpu = read_cpu_model()
    probes = load_probes(
        progress=lambda step: print(f"{step} (probes) ...", file=sys.stderr, flush=True)
    )
    limits = machine_limits(cpu, probes)
    if to_stdout:  # `--json -`: the JSON alone on stdout, the report on stderr
        with contextlib.redirect_stdout(sys.stderr):
            _report(cpu, limits)
        print(json.dumps(to_json(limits), indent=2, sort_keys=True))
        return 0
    _report(cpu, limits)
    if args.json:
        try:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(to_json(limits), indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise write_failure(args.json, exc) from None
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def _report(cpu: CpuModel | None, limits: MachineLimits) -> None:
    """The human-readable report on stdout."""
    if cpu is None:
        print("CPU: /proc/cpuinfo not readable; theoretical peaks unknown")
    else:
        print(
            f"CPU: {cpu.model_name} ({cpu.vendor}, {cpu.microarchitecture}), "
            f"{cpu.physical_cores} cores, {cpu.logical_cpus} logical CPUs"
        )
        print(
            f"ISA: {', '.join(cpu.isa) or '—'}; SIMD {cpu.simd_width_bits} bits; "
            f"{cpu.fma_units} × {cpu.fma_width_bits}-bit FMA per core"
        )
        print(f"  table row: {cpu.source}")
    quota = limits.cgroup_cpu_quota
    print(
        f"effective cores: {fmt_number(limits.effective_cores)} (affinity mask"
        + (f", cgroup quota {fmt_number(quota)} cores)" if quota else "; no cgroup CPU quota)")
    )
    clock = limits.clock_ghz
    print(
        f"clock: nominal {fmt_number(clock['nominal'])} GHz, maximum "
        f"{fmt_number(clock['max']) if clock['max'] else 'not reported'}, measured "
        f"{fmt_number(clock['measured'])} GHz (dependent-chain probe; checks below)"
    )
    vector, scalar = clock.get("vector"), clock.get("vector_scalar") or clock.get("measured")
    if vector and scalar:
        print(f"       {vector_clock_text(vector, scalar, limits.fma_width_bits)}")
    if limits.fact_checks:
        print("machine facts, each from two independent methods:")
        rows = [FACT_CHECK_HEADER, *fact_check_rows(limits.fact_checks)]
        for line in aligned_lines(rows, left=range(5)):
            print(f"  {line}")
    for dtype, peak in limits.peak_gflops.items():
        print(f"{dtype}: theoretical {peak.formula or '—'}")
        if peak.formula_nominal:
            print(f"{'':9}at the nominal clock: {peak.formula_nominal}")
        ratio = f" = {peak.ratio:.2f} × theoretical" if peak.ratio else ""
        print(
            f"{'':9}measured compute peak {fmt_number(peak.measured)} GFLOP/s{ratio}"
            f" (best: {peak.measured_by or '—'}); one core "
            f"{fmt_number(peak.one_core)} GFLOP/s"
            + (
                f" = {peak.one_core_ratio:.2f} × one core's theoretical"
                if peak.one_core_ratio
                else ""
            )
            + (f" — {peak.warning}" if peak.warning else "")
        )
    if limits.precision_peaks:
        print("lower precisions (precision_peak probe; per cycle at the clock under FMA load):")
        rows = [PRECISION_HEADER, *precision_rows(limits.precision_peaks)]
        for line in aligned_lines(rows, left={0, 6}):
            print(f"  {line}")
    bandwidth = limits.bandwidth_gbs
    print(
        f"memory bandwidth (STREAM triad): one core {fmt_number(bandwidth['one_core'])} GB/s,"
        f" all cores {fmt_number(bandwidth['all_cores'])} GB/s"
    )
    for warning in limits.limit_warnings:
        print(f"warning: {warning}")


COMMAND = Command("machine", HELP, DESCRIPTION, run, (add_options,))
