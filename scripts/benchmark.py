"""Benchmark: the default ladder end to end, several times, with spreads.

Usage: python scripts/benchmark.py [--runs K] [extra `overhead-tui run` options]

Runs `overhead-tui run` K times (default 3) as separate processes, each with the defaults, and
prints (Markdown) the wall time of each whole run and, per rung, the median GFLOP/s and × dense
across runs with their min-max spread.  This machine is shared: compare ratios within a run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from overhead_tui.format import fmt_gflops, fmt_ratio
from overhead_tui.model import RunSummary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args, extra = parser.parse_known_args()
    walls: list[float] = []
    summaries: list[RunSummary] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            out = Path(tmp) / f"run{i}"
            started = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "overhead_tui", "run", "--out", str(out), *extra],
                capture_output=True,
                text=True,
                check=False,
            )
            walls.append(time.perf_counter() - started)
            if proc.returncode not in (0, 1):
                print(proc.stderr, file=sys.stderr)
                return proc.returncode
            summaries.append(RunSummary.load(out))
            print(f"run {i + 1}: {walls[-1]:.1f} s", file=sys.stderr)
    print(
        f"Whole run (wall, {args.runs} runs): min {min(walls):.1f} s, "
        f"median {statistics.median(walls):.1f} s, max {max(walls):.1f} s\n"
    )
    print("| rung | scenario | n | GFLOP/s median (min–max) | × dense median (min–max) | status |")
    print("|---:|---|---:|---:|---:|---|")
    for index, first in enumerate(summaries[0].scenarios):
        runs = [s.scenarios[index] for s in summaries]
        gf = [r.gflops for r in runs if r.gflops is not None]
        vd = [r.vs_dense for r in runs if r.vs_dense is not None]
        statuses = ",".join(sorted({r.status for r in runs}))
        print(
            f"| {first.rung} | {first.name} | {first.n} | "
            f"{_spread(gf, fmt_gflops)} | {_spread(vd, fmt_ratio)} | {statuses} |"
        )
    return 0


def _spread(values: list[float], fmt) -> str:  # type: ignore[no-untyped-def]
    if not values:
        return "—"
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


if __name__ == "__main__":
    sys.exit(main())
