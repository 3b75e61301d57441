"""``overhead-tui probes``: the unit costs of this machine and interpreter."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from overhead_tui.probes import cache_path, load_probes


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``probes``."""
    parser = subparsers.add_parser(
        "probes",
        help="print the probes' unit costs (measured once per machine, then cached)",
        description="Each probe isolates one overhead source and measures its unit cost in its "
        f"own worker process. Results are cached in {cache_path()} per CPU, interpreter and "
        "probe source.",
    )
    parser.add_argument("--refresh", action="store_true", help="measure again, ignoring the cache")
    parser.add_argument("--python", metavar="PATH", help="interpreter (default: this one)")
    return parser


def run(args: argparse.Namespace) -> int:
    """Print one line per probe: name, value, unit, spread, layer."""

    def progress(name: str) -> None:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)

    results = load_probes(args.python, refresh=args.refresh, progress=progress)
    print(f"{'probe':<18} {'value':>10}  {'unit':<12} {'spread':>7}  layer")
    failed = 0
    for result in results.values():
        if result.value is None:
            failed += 1
            print(
                f"{result.name:<18} {'—':>10}  {result.unit:<12} {'':>7}  {result.layer}: "
                f"failed: {result.error}"
            )
            continue
        spread = f"{result.spread * 100:.0f} %" if result.spread is not None else "—"
        print(
            f"{result.name:<18} {result.value:>10.3g}  {result.unit:<12} {spread:>7}  "
            f"{result.layer}"
        )
    print("value = median over 3 worker processes; spread = (max − min) / median of them")
    return 1 if failed else 0
