"""The blind corpus's table from one or more runs: kernel, GFLOP/s, explained, largest row.

Usage: python scripts/corpus_table.py RUN_DIR_OR_SUMMARY [...]   (one column pair per run)
"""

from __future__ import annotations

import sys
from pathlib import Path

from overhead_tui.summary.records import RunSummary


def _load(arg: str) -> RunSummary:
    path = Path(arg)
    return RunSummary.load(path / "summary.json" if path.is_dir() else path)


def main(args: list[str]) -> int:
    runs = [_load(a) for a in args]
    names = [s.name for s in runs[0].scenarios]
    head = "| kernel | n |" + "".join(
        f" GFLOP/s {i + 1} | explained {i + 1} |" for i in range(len(runs))
    )
    print(head + " largest row (last run) |")
    print("|---|---:|" + "---:|---:|" * len(runs) + "---|")
    for name in names:
        cells = []
        largest = ""
        n = ""
        for run in runs:
            result = next((s for s in run.scenarios if s.name == name), None)
            b = result.breakdown if result else None
            if result is None or not result.has_speed:
                cells += [result.status if result else "-", "-"]
                continue
            n = str(result.n)
            cells += [f"{result.gflops:.4g}", f"{b.explained:.2f}" if b else "-"]
            if b and b.rows:
                row = max(b.rows, key=lambda r: r.ns_per_fma or 0.0)
                largest = f"{row.layer}: {row.unit[:70]} ({(row.share or 0):.2f})"
        print(f"| {name} | {n} | " + " | ".join(cells) + f" | {largest} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
