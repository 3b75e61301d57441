"""Benchmark: how well each probe's reported value repeats from one measurement to the next.

Usage: python scripts/probe_stability.py [--repeats K] [--processes P] [PROBE ...]

Measures each probe K times (default 4) exactly as `overhead-tui probes --refresh` does (P
worker processes each, the median of them reported) and prints, per probe, the K reported
values, their median and the run-to-run spread (max − min) / median.  Issue 4 asks for < 10 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from overhead_tui.engine.probe_runs import measure_probe
from overhead_tui.plugins.probes import discover_probes

NS_PROBES = ("dispatch", "boxing", "container_access", "call_overhead")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument(
        "--processes", type=int, default=None, help="default: each probe's own PROCESSES"
    )
    parser.add_argument("probes", nargs="*", default=list(NS_PROBES))
    args = parser.parse_args()
    specs = {s.name: s for s in discover_probes()}
    unknown = [p for p in args.probes if p not in specs]
    if unknown:
        print(f"unknown probe(s): {', '.join(unknown)}; known: {', '.join(specs)}")
        return 2
    print(f"{args.repeats} measurements × {args.processes or 'the probe’s'} processes each\n")
    print("| probe | values | median | run-to-run spread | seconds |")
    print("|---|---|---:|---:|---:|")
    for name in args.probes:
        started = time.perf_counter()
        values = []
        for _ in range(args.repeats):
            result = measure_probe(specs[name], sys.executable, processes=args.processes)
            if result.error or result.value is None:
                print(f"| {name} | error: {result.error} | | | |")
                break
            values.append(result.value)
        else:
            mid = statistics.median(values)
            spread = (max(values) - min(values)) / abs(mid) if mid else float("nan")
            shown = ", ".join(f"{v:.3g}" for v in values)
            print(
                f"| {name} | {shown} | {mid:.3g} {specs[name].unit} | {spread:.0%} | "
                f"{time.perf_counter() - started:.0f} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
