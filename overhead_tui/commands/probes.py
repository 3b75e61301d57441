"""``overhead-tui probes``: the unit costs of this machine and interpreter."""

from __future__ import annotations

import argparse
import sys

from overhead_tui.commands.command import Command
from overhead_tui.commands.common import prepare_cache
from overhead_tui.engine.probe_runs import (
    FIRST_PROCESSES,
    PROCESSES,
    TIGHT,
    cache_path,
    load_probes,
)
from overhead_tui.interpreters.check import verified_python
from overhead_tui.machine.facts import probe_load_warnings
from overhead_tui.present.probes_text import probe_table

HELP = "print the probes' unit costs (measured once per machine, then cached)"
DESCRIPTION = (
    "Each probe isolates one overhead source and measures its unit cost, in up to "
    f"{PROCESSES} worker processes ({FIRST_PROCESSES} when they agree within "
    f"{TIGHT:.0%}; the procs column says how many ran). Results are cached in "
    "overhead-tui/probes.json under the user cache folder ($XDG_CACHE_HOME, by default "
    "~/.cache) per CPU, interpreter and probe source; `overhead-tui probes` prints the file's "
    "path."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``probes``."""
    parser.add_argument("--refresh", action="store_true", help="measure again, ignoring the cache")
    parser.add_argument("--python", metavar="PATH", help="interpreter (default: this one)")


def run(args: argparse.Namespace) -> int:
    """One line per probe (value, unit, spread, layer) and its other figures below it."""

    def progress(step: str) -> None:
        print(f"{step} ...", file=sys.stderr, flush=True)

    prepare_cache()  # an unwritable cache: a temporary one, said before measuring
    python = verified_python(args.python) if args.python else sys.executable
    results = load_probes(python, refresh=args.refresh, progress=progress)
    print(f"interpreter: {python}")
    print(f"cached in: {cache_path()}")
    lines, failed = probe_table(results)
    print("\n".join(lines))
    for warning in probe_load_warnings(results):
        print(f"! {warning}")
    return 1 if failed else 0


COMMAND = Command("probes", HELP, DESCRIPTION, run, (add_options,))
