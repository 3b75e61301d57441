"""``overhead-tui profile NAME``: where the cycles go, measured by real profilers."""

from __future__ import annotations

import argparse
import json
import sys

from overhead_tui.commands.arguments import positive_int, seconds_to_wait
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import (
    add_export_options,
    add_scenario_dirs,
    check_sizes,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.plan import size_for
from overhead_tui.engine.spawn import Cancel
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.export.stacks import to_collapsed, to_speedscope
from overhead_tui.plugins.scenarios import SUPPORTED_DTYPES, discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.profile_text import render
from overhead_tui.profilers.profile import (
    profile_scenario,
)
from overhead_tui.profilers.pyspy import RATE_HZ, PyspySamples, Stack
from overhead_tui.profilers.registry import BACKENDS, detect
from overhead_tui.summary.profile import (
    ProfileRecord,
)
from overhead_tui.summary.records import Settings

HELP = "profile one scenario with perf, py-spy, callgrind and Scalene"
DESCRIPTION = (
    "Run one scenario under each profiler (the profiler is the parent of the "
    "worker), with a timeout, and report where its time goes by layer. Missing profilers "
    "are reported as unavailable (see `overhead-tui doctor`)."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``profile``."""
    parser.add_argument("name", metavar="NAME", help="the scenario (see `overhead-tui list`)")
    add_scenario_dirs(parser)
    parser.add_argument(
        "--size", type=positive_int, metavar="N", help="matrix order (default: the scenario's own)"
    )
    parser.add_argument(
        "--dtype",
        choices=SUPPORTED_DTYPES,
        help="element type (default: float64, or the scenario's first dtype if it has no float64)",
    )
    parser.add_argument(
        "--duration",
        type=seconds_to_wait,
        default=3.0,
        metavar="S",
        help="seconds the kernel repeats under each profiler (default: 3)",
    )
    parser.add_argument(
        "--backend",
        action="append",
        choices=BACKENDS,
        default=[],
        help="profiler to use (repeatable; default: all)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds_to_wait,
        default=240.0,
        metavar="S",
        help="seconds before a profiler run is killed (default: 240)",
    )
    add_export_options(
        parser,
        json="write the profile JSON",
        speedscope="write py-spy's samples as speedscope JSON",
        collapsed="write py-spy's samples as collapsed stacks",
    )


def run(args: argparse.Namespace) -> int:
    """Profile and print per-backend layer shares and top symbols; 1 if any backend failed."""
    spec = select(discover(list(args.scenarios_dir)), [args.name])[0]
    if args.dtype is None:
        args.dtype = "float64" if "float64" in spec.dtypes else spec.dtypes[0]
    elif args.dtype not in spec.dtypes:
        raise UsageError(
            f"{spec.name} does not support {args.dtype} (it supports {', '.join(spec.dtypes)}); "
            f"fix: --dtype {spec.dtypes[0]} or leave --dtype out"
        )
    settings = Settings(dtype=args.dtype, size=args.size)
    check_sizes([spec], settings)
    check_export_paths(
        {"--json": args.json, "--speedscope": args.speedscope, "--collapsed": args.collapsed}
    )
    stacks_wanted = [o for o, p in (("--speedscope", args.speedscope),
                                    ("--collapsed", args.collapsed)) if p is not None]  # fmt: skip
    if stacks_wanted and args.backend and "pyspy" not in args.backend:
        raise UsageError(
            f"{stacks_wanted[0]} writes py-spy's samples, and py-spy is not among the backends; "
            "fix: add --backend pyspy"
        )
    n = size_for(spec, settings)
    wanted = tuple(args.backend) or BACKENDS
    found = detect(wanted)
    if not any(cap.ok for cap in found.values()):  # nothing could record: say so, run nothing
        why = "; ".join(f"{name}: {cap.reason or 'unavailable'}" for name, cap in found.items())
        fixes = "; ".join(cap.fix for cap in found.values() if cap.fix) or "install one"
        raise UsageError(f"no profiler can run here ({why}); fix: {fixes}")

    def progress(step: str) -> None:
        print(f"profiling {spec.name} (n={n}): {step} ...", file=sys.stderr, flush=True)

    def note(text: str) -> None:
        print(f"overhead-tui: {text}", file=sys.stderr, flush=True)

    cancel = Cancel()  # Ctrl-C, SIGTERM, SIGHUP: stop the running backend, keep the finished
    with stop_on_signals(note, cancel.set):
        result = profile_scenario(
            spec,
            n,
            args.dtype,
            wanted,
            args.duration,
            args.timeout,
            progress=progress,
            cancel=cancel,
        )
    pyspy = result.backends.get("pyspy")
    stacks = pyspy.stacks if isinstance(pyspy, PyspySamples) else ()
    print(render(result))
    _write(args, result, stacks)
    if result.cancelled:
        note("interrupted: the backends that finished are above (and in the exports)")
        return EXIT_INTERRUPTED
    failed = [b for b in result.backends.values() if b.status == "failed"]
    return 1 if failed or result.error else 0


def _write(args: argparse.Namespace, result: ProfileRecord, stacks: tuple[Stack, ...]) -> None:
    try:
        _write_files(args, result, stacks)
    except OSError as exc:
        raise UsageError(
            f"cannot write an export: {exc.strerror or exc} ({exc.filename})"
        ) from None


def _write_files(
    args: argparse.Namespace, result: ProfileRecord, stacks: tuple[Stack, ...]
) -> None:
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result.to_json(), indent=2, sort_keys=True) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    for path, render_stacks in ((args.speedscope, "speedscope"), (args.collapsed, "collapsed")):
        if path is None:
            continue
        if not stacks:
            print(f"not written: {path} (no py-spy samples)", file=sys.stderr)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if render_stacks == "speedscope":
            doc = to_speedscope(stacks, f"{result.scenario} n={result.n}", RATE_HZ)
            path.write_text(json.dumps(doc) + "\n")
        else:
            path.write_text(to_collapsed(stacks))
        print(f"wrote {path}", file=sys.stderr)


COMMAND = Command("profile", HELP, DESCRIPTION, run, (add_options,))
