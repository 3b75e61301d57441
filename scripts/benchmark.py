"""Benchmark: the default ladder end to end, several times, with spreads and expectations.

Usage: python scripts/benchmark.py [--runs K] [--no-profile] [extra `overhead-tui run` options]

Runs `overhead-tui run` K times (default 3) as separate processes, each with the defaults, and
prints (Markdown) the wall time of each whole run and, per rung, the median GFLOP/s and × dense
across runs with their min-max spread.  This machine is shared: compare ratios within a run.

Then checks the speed expectations (:data:`EXPECTATIONS`) against the median of the runs and
one profile of the dense kernel (perf and py-spy, where installed).  These belong here and not
in the test suite: on a loaded or unusual machine they fail for reasons that are no fault of the
code.  The exit status is 1 when one is not met.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from overhead_tui.present.format import fmt_gflops, fmt_ratio
from overhead_tui.summary.records import RunSummary

Check = tuple[str, str, Callable[[float], bool]]
"""(what, expected as text, test on the measured value)."""

EXPECTATIONS: dict[str, Check] = {
    "probe.dispatch": ("bytecode dispatch probe (ns/dispatch)", "0.1–50", lambda v: 0.1 < v < 50),
    "probe.boxing": ("boxing probe (ns/float)", "0.1–200", lambda v: 0.1 < v < 200),
    "numba_ikj.dispatch_share": (
        "numba_ikj time share of bytecode dispatch",
        "< 0.05",
        lambda v: v < 0.05,
    ),
    "profile.perf.dense_kernel": (
        "perf on numpy_matmul (n = 256): dense kernel share of samples",
        "≥ 0.5",
        lambda v: v >= 0.5,
    ),
    "profile.pyspy.native_fraction": (
        "py-spy on numpy_matmul (n = 256): samples ending in native frames",
        "≥ 0.9",
        lambda v: v >= 0.9,
    ),
}
"""Speed expectations on a quiet machine like the README's reference machine."""


def measured_values(summaries: list[RunSummary], profile: dict[str, Any] | None) -> dict:
    """{expectation key: the median over the runs (or the profile's value)}; missing keys
    were not measured (probes off, a rung not ok, a profiler not installed)."""
    values: dict[str, list[float]] = {}
    for summary in summaries:
        for name in ("dispatch", "boxing"):
            probe = summary.probes.get(name) or {}
            if probe.get("value") is not None:
                values.setdefault(f"probe.{name}", []).append(float(probe["value"]))
        numba = summary.scenario("numba_ikj")
        if numba is not None and numba.breakdown:
            share = numba.breakdown["layers"].get("interpreter_dispatch")
            if share is not None:
                values.setdefault("numba_ikj.dispatch_share", []).append(float(share))
    result = {key: statistics.median(v) for key, v in values.items()}
    backends = (profile or {}).get("backends", {})
    perf = backends.get("perf", {})
    if perf.get("status") == "ok":
        result["profile.perf.dense_kernel"] = perf.get("layers", {}).get("dense_kernel", 0.0)
    pyspy = backends.get("pyspy", {})
    if pyspy.get("status") == "ok" and pyspy.get("native_fraction") is not None:
        result["profile.pyspy.native_fraction"] = pyspy["native_fraction"]
    return result


def check_expectations(values: dict[str, float]) -> list[tuple[str, str, str, str]]:
    """Rows (what, expected, measured, verdict): verdict is ok, NOT MET or not measured."""
    rows = []
    for key, (what, expected, test) in EXPECTATIONS.items():
        value = values.get(key)
        if value is None or not math.isfinite(value):
            rows.append((what, expected, "—", "not measured"))
        else:
            rows.append((what, expected, f"{value:.3g}", "ok" if test(value) else "NOT MET"))
    return rows


def profile_dense_kernel(tmp: str) -> dict[str, Any] | None:
    """One profile of numpy_matmul at n = 256 with perf and py-spy (None when it failed)."""
    out = Path(tmp) / "profile.json"
    command = [sys.executable, "-m", "overhead_tui", "profile", "numpy_matmul", "--size", "256"]
    command += ["--duration", "1", "--backend", "perf", "--backend", "pyspy", "--json", str(out)]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not out.exists():
        print(f"profile failed: {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    return json.loads(out.read_text(encoding="utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-profile", action="store_true", help="skip the dense-kernel profile")
    args, extra = parser.parse_known_args()
    profile = None
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
        if not args.no_profile:
            profile = profile_dense_kernel(tmp)
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
    rows = check_expectations(measured_values(summaries, profile))
    print("\n| expectation | expected | measured | |\n|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 1 if any(verdict == "NOT MET" for *_, verdict in rows) else 0


def _spread(values: list[float], fmt) -> str:  # type: ignore[no-untyped-def]
    if not values:
        return "—"
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


if __name__ == "__main__":
    sys.exit(main())
