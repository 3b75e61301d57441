"""``overhead-tui interpreters``: the same ladder on several Pythons side by side.

The tool's own interpreter runs first (the baseline), then each ``--python SPEC`` (a path or a
version, see ``engine.interpreters``) in an environment the tool provisions for it
(``engine.provision``; ``--no-provision`` uses it as it is).  Each is an ordinary run (its own
run directory under ``--out``, its own probes), and the combined summary
(``summary.interpreters``) holds them all; stdout gets the rung × interpreter table.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from overhead_tui.commands.common import (
    add_measurement_options,
    add_scenario_dirs,
    check_export_paths,
    check_python,
    check_runs_parent,
    check_sizes,
    positive_int,
    prepare_cache,
    settings_from,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.engine.events import RunFinished
from overhead_tui.engine.interpreters import describe, resolve_spec, this_python
from overhead_tui.engine.plan import new_run_dir
from overhead_tui.engine.provision import ProvisionError, provision
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import discover, select
from overhead_tui.present.format import fmt_gflops, fmt_number
from overhead_tui.summary.interpreters import (
    InterpreterRun,
    InterpretersSummary,
    biggest_change,
)

EXIT_INTERRUPTED = 130


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``interpreters``."""
    parser = subparsers.add_parser(
        "interpreters",
        help="the same ladder on several Pythons side by side",
        description="Run the ladder on this interpreter (the baseline) and on each --python, "
        "each in an environment the tool provisions, and print rung × interpreter: GFLOP/s, "
        "bytecodes per multiply-add and the layer whose cost changed most.",
        conflict_handler="resolve",
    )
    parser.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this scenario (repeatable; default: all)",
    )
    add_scenario_dirs(parser)
    parser.add_argument("--size", type=positive_int, metavar="N", help="matrix order n")
    add_measurement_options(parser)
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        required=True,
        metavar="SPEC",
        help="an interpreter to compare: a path or a version such as 3.12 (repeatable)",
    )
    parser.add_argument(
        "--no-provision",
        action="store_true",
        help="use each interpreter as it is (it needs numpy and threadpoolctl already)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the combined summary")
    parser.add_argument("--markdown", type=Path, metavar="PATH", help="write the table")
    return parser


def run(args: argparse.Namespace) -> int:
    """Run every interpreter's ladder; exit 0 when every one ran with every rung ok or
    skipped, 1 otherwise, 2 for a SPEC that names nothing, 130 when interrupted."""
    from overhead_tui.commands.run import Progress

    pythons = [resolve_spec(spec) for spec in args.python]  # UsageError: exit 2 before running
    check_export_paths([args.json, args.markdown])
    specs = select(discover(list(args.scenarios_dir)), list(args.scenario))
    args_one = argparse.Namespace(**{**vars(args), "python": None})
    settings = settings_from(args_one)
    check_sizes(specs, settings)
    parent = check_runs_parent(args.out)
    prepare_cache()
    progress = Progress(sys.stderr, live=stderr_is_tty())
    combined = InterpretersSummary(
        settings={k: v for k, v in vars(settings).items() if k != "python"},
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    entries: list[tuple[str | None, str]] = [(None, sys.executable)]
    entries += [(p, spec) for p, spec in zip(pythons, args.python, strict=True)]
    failed = False
    for python, spec in entries:
        entry = _prepare(python, spec, args.no_provision, progress.note)
        combined.interpreters.append(entry)
        if entry.error is not None:
            progress.note(f"overhead-tui: {spec}: {entry.error}")
            failed = True
            continue
        run_python = (entry.provision or {}).get("python") if python else None
        if python is not None:
            try:
                run_python = check_python(run_python or python)
            except UsageError as exc:
                entry.error = str(exc)
                progress.note(f"overhead-tui: {spec}: {exc}")
                failed = True
                continue
        one = argparse.Namespace(**{**vars(args_one), "python": run_python})
        settings_i = settings_from(one)
        run_dir = new_run_dir(parent)
        entry.run_dir = str(run_dir)
        progress.note(f"== {entry.label} ({entry.python['executable']}) → {run_dir}")
        runner = Runner(specs, settings_i, run_dir)
        summary = runner.summary
        started = time.monotonic()
        with stop_on_signals(progress.note, runner.cancel):
            for event in runner.events():
                progress.show(event)
                if isinstance(event, RunFinished):
                    summary = event.summary
        entry.scenarios = list(summary.scenarios)
        progress.note(f"   {entry.label}: {time.monotonic() - started:.0f} s")
        if runner.cancelled:
            _write(combined, args, progress.note)
            return EXIT_INTERRUPTED
        failed |= any(s.status not in ("ok", "skipped") for s in summary.scenarios)
    table = render_table(combined)
    _write(combined, args, progress.note)
    print(table)
    return 1 if failed else 0


def _prepare(python: str | None, spec: str, no_provision: bool, note: Any) -> InterpreterRun:
    """Describe (and provision) one interpreter; ``error`` says why it cannot run."""
    if python is None:
        return InterpreterRun(python=this_python().to_dict())
    try:
        info = describe(python)
    except UsageError as exc:
        return InterpreterRun(
            python={
                "implementation": "?",
                "version": spec,
                "executable": python,
                "free_threaded": False,
                "jit": None,
            },
            error=str(exc),
        )
    entry = InterpreterRun(python=info.to_dict())
    if no_provision:
        return entry
    try:
        env = provision(python, info.version, note)
    except ProvisionError as exc:
        entry.error = str(exc)
        return entry
    if env.reused:
        note(f"{info.label}: reusing its environment {env.folder}")
    entry.provision = env.to_dict()
    return entry


def _write(combined: InterpretersSummary, args: argparse.Namespace, note: Any) -> None:
    if args.json is not None:
        combined.save(args.json)
        note(f"wrote {args.json}")
    if args.markdown is not None:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(render_table(combined) + "\n", encoding="utf-8")
        note(f"wrote {args.markdown}")


def cell(result: Any, change: tuple[str, float] | None) -> str:
    """One table cell: ``GFLOP/s · bytecodes/FMA · biggest layer change``."""
    if result is None:
        return "—"
    if not result.has_speed:
        return result.status
    parts = [f"{fmt_gflops(result.gflops)} GFLOP/s"]
    events = result.events_per_fma or {}
    if events.get("bytecodes") is not None:
        parts.append(f"{fmt_number(events['bytecodes'])} bc/FMA")
    if change is not None:
        layer, delta = change
        parts.append(f"{layer} {delta:+.2f} ns")
    return " · ".join(parts)


def render_table(combined: InterpretersSummary) -> str:
    """The rung × interpreter Markdown table (stdout and ``--markdown``), then notes."""
    runs = combined.interpreters
    names: list[tuple[int, str]] = []
    for entry in runs:
        for s in entry.scenarios:
            if (s.rung, s.name) not in names:
                names.append((s.rung, s.name))
    names.sort()
    headers = ["rung", *(e.label + (" (baseline)" if i == 0 else "") for i, e in enumerate(runs))]
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    base = runs[0]
    for _, name in names:
        row = [name]
        for i, entry in enumerate(runs):
            result = entry.scenario(name)
            change = biggest_change(base.scenario(name), result) if i else None
            row.append(cell(result, change) if entry.error is None else "not run")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append(
        "Cells: GFLOP/s · bytecodes executed per multiply-add · the layer whose modelled cost "
        "per multiply-add changed most against the baseline (ns; negative = cheaper)."
    )
    for entry in runs:
        if entry.error:
            lines.append(f"- {entry.label}: not run: {entry.error}")
        for key, what in (("nearest", "instead of"), ("missing", "missing")):
            for pkg, detail in ((entry.provision or {}).get(key) or {}).items():
                got = (entry.provision or {}).get("installed", {}).get(pkg)
                text = (
                    f"{pkg} {got} {what} {detail}"
                    if key == "nearest"
                    else f"{pkg} {what}: {detail}"
                )
                lines.append(f"- {entry.label}: {text}")
        for s in entry.scenarios:
            if s.status not in ("ok",):
                lines.append(f"- {entry.label}: {s.name}: {s.status} — {s.error}")
    return "\n".join(lines)
