"""``overhead-tui probes``: the unit costs of this machine and interpreter."""

from __future__ import annotations

import argparse
import sys

from overhead_tui.commands.command import Command
from overhead_tui.commands.common import prepare_cache
from overhead_tui.engine.probe_runs import PROCESSES, cache_path, load_probes
from overhead_tui.interpreters.check import check_python
from overhead_tui.machine.facts import probe_load_warnings
from overhead_tui.summary.probes import ProbeResult
from overhead_tui.summary.units import fmt_number

SPREAD_WARN = 0.10
"""Run-to-run spread at or above which a probe is flagged (10 %)."""


HELP = "print the probes' unit costs (measured once per machine, then cached)"
DESCRIPTION = (
    "Each probe isolates one overhead source and measures its unit cost, in "
    f"{PROCESSES} worker processes. Results are cached in overhead-tui/probes.json under the "
    "user cache folder ($XDG_CACHE_HOME, by default ~/.cache) per CPU, interpreter and probe "
    "source; `overhead-tui probes` prints the file's path."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``probes``."""
    parser.add_argument("--refresh", action="store_true", help="measure again, ignoring the cache")
    parser.add_argument("--python", metavar="PATH", help="interpreter (default: this one)")


def run(args: argparse.Namespace) -> int:
    """One line per probe (value, unit, spread, layer) and its other figures below it."""

    def progress(name: str) -> None:
        print(f"measuring {name} ...", file=sys.stderr, flush=True)

    prepare_cache()  # an unwritable cache: a temporary one, said before measuring
    python = check_python(args.python) if args.python else sys.executable
    results = load_probes(python, refresh=args.refresh, progress=progress)
    print(f"interpreter: {python}")
    print(f"cached in: {cache_path()}")
    print(f"{'probe':<18} {'value':>10}  {'unit':<12} {'spread':>8} {'procs':>5}  layer")
    failed = 0
    for result in results.values():
        if result.value is None:
            failed += 1
            print(
                f"{result.name:<18} {'—':>10}  {result.unit:<12} {'':>8}  {result.layer}: "
                f"failed: {result.error}"
            )
            continue
        spread = "—" if result.spread is None else f"{result.spread * 100:.0f} %"
        flag = " !" if result.spread is not None and result.spread >= SPREAD_WARN else "  "
        note = "  (≤ 0: below the resolution; counted as 0)" if result.value <= 0 else ""
        if result.interval:
            note += f"  [{fmt_number(result.interval[0])}–{fmt_number(result.interval[1])}]"
        print(
            f"{result.name:<18} {fmt_number(result.value):>10}  {result.unit:<12} "
            f"{spread:>6}{flag} {len(result.samples):>5}  {result.layer}{note}"
        )
        for key, value in sorted(result.details.items()):
            if isinstance(value, bool):
                print(f"{'':<20}{key} = {'yes' if value else 'no'}")
            elif isinstance(value, str):
                print(f"{'':<20}{key} = {value}")
            elif isinstance(value, (int, float)) and key != "within_process_spread":
                print(f"{'':<20}{key} = {_detail(key, float(value), result)}")
    print(
        "value = median over the probe's worker processes (procs); spread = (max − min) / "
        f"median of them; ! marks a spread ≥ {SPREAD_WARN:.0%} (a shared VM: compare ratios "
        "in one run)"
    )
    for warning in probe_load_warnings(results):
        print(f"! {warning}")
    return 1 if failed else 0


def _detail(key: str, value: float, result: ProbeResult) -> str:
    """A detail's value and per-process interval; a cost ≤ 0 is "below resolution", never
    printed as a (negative) cost."""
    bounds = (result.detail_intervals or {}).get(key)
    interval = f" [{fmt_number(bounds[0])}–{fmt_number(bounds[1])}]" if bounds else ""
    if key.endswith("_ns") and value <= 0:
        return f"below resolution (measured {fmt_number(value)}; counted as 0){interval}"
    return fmt_number(value) + interval


COMMAND = Command("probes", HELP, DESCRIPTION, run, (add_options,))
