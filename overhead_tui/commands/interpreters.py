"""``overhead-tui interpreters``: the same ladder on several Pythons side by side.

The tool's own interpreter runs first (the baseline), then each ``--python PYTHON`` (a path or a
version, see ``interpreters.resolve``) in an environment the tool provisions for it
(``interpreters.provision``; ``--no-provision`` uses it as it is).  Each is an ordinary run (its own
run directory under ``--out``, its own probes), and the combined summary
(``summary.interpreters``) holds them all; stdout gets the rung × interpreter table.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable

from overhead_tui.commands.arguments import positive_int
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import (
    add_export_options,
    add_measurement_options,
    add_scenario_choice,
    check_sizes,
    open_interpreters,
    prepare_cache,
    settings_from,
    stderr_is_tty,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.events import RunFinished
from overhead_tui.engine.run_dir import new_run_dir, resolve_runs_parent
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.interpreters.check import MIN_WORKER_PYTHON, verified_python
from overhead_tui.interpreters.provision import ProvisionError, provision
from overhead_tui.interpreters.resolve import (
    describe,
    environment,
    plan_columns,
    resolve_python,
    this_python,
)
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.present.interpreters_text import render_table
from overhead_tui.summary.interpreters import InterpreterRun, InterpretersSummary, PythonInfo
from overhead_tui.summary.records import created_now

HELP = "the same ladder on several Pythons side by side"
DESCRIPTION = (
    "Run the ladder on this interpreter (the baseline) and on each --python, "
    "each in an environment the tool provisions, and print rung × interpreter: GFLOP/s, "
    "bytecodes per multiply-add and the layer whose cost changed most."
)
PARSER_OPTIONS = {"conflict_handler": "resolve"}


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``interpreters``."""
    add_scenario_choice(parser)
    parser.add_argument("--size", type=positive_int, metavar="N", help="matrix order n")
    add_measurement_options(parser)
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        required=True,
        metavar="PYTHON",
        help="an interpreter to compare: a path or a version such as 3.12 (repeatable)",
    )
    parser.add_argument(
        "--no-provision",
        action="store_true",
        help="use each interpreter as it is (it needs numpy and threadpoolctl already)",
    )
    add_export_options(parser, json="write the combined summary", markdown="write the table")
    parser.add_argument(
        "--app", action="store_true", help="afterwards, show the Interpreters screen in the app"
    )


def run(args: argparse.Namespace) -> int:
    """Run every interpreter's ladder; exit 0 when every one ran with every rung ok or
    skipped, 1 otherwise, 2 for a ``--python`` that names nothing, 130 when interrupted."""
    from overhead_tui.present.progress import RunProgress

    pythons = [
        resolve_python(requested) for requested in args.python
    ]  # UsageError: exit 2 before running
    for found, requested in zip(pythons, args.python, strict=True):
        _refuse_too_old(found, requested)
        if args.no_provision:  # used as it is: what it lacks is known before anything runs
            verified_python(found)
    if args.app and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("--app needs a terminal (stdin and stdout are not a TTY); fix: drop --app")
    check_export_paths({"--json": args.json, "--markdown": args.markdown}, made=args.out)
    specs = select(discover(list(args.scenarios_dir)), list(args.scenario), args.sets)
    args_one = argparse.Namespace(**{**vars(args), "python": None})
    settings = settings_from(args_one)
    check_sizes(specs, settings)
    parent = resolve_runs_parent(args.out)
    prepare_cache()
    progress = RunProgress(sys.stderr, live=stderr_is_tty())
    combined = InterpretersSummary(
        settings=dataclasses.replace(settings, python=None),
        created=created_now(),
    )
    entries: list[tuple[str | None, str]] = [(None, sys.executable)]
    entries += [(p, requested) for p, requested in zip(pythons, args.python, strict=True)]
    failed = False
    for python, requested in entries:
        for entry, env in _columns(_prepare(python, requested, args.no_provision, progress.note)):
            run_python = entry.provision.python if python and entry.provision else None
            if python is not None and entry.error is None:
                try:
                    run_python = verified_python(run_python or python)
                except UsageError as exc:
                    entry = dataclasses.replace(entry, error=str(exc))
            if entry.error is not None:
                combined.interpreters.append(entry)
                said = entry.error if requested in entry.error else f"{requested}: {entry.error}"
                progress.note(f"overhead-tui: error: {said}")
                failed = True
                continue
            one = argparse.Namespace(**{**vars(args_one), "python": run_python})
            settings_i = settings_from(one)
            run_dir = new_run_dir(parent)
            setting = "".join(f" {k}={v}" for k, v in env.items())
            progress.note(f"== {entry.label} ({entry.python.executable}{setting}) → {run_dir}")
            runner = Runner(specs, settings_i, run_dir)
            summary = runner.summary
            started = time.monotonic()
            with environment(env), stop_on_signals(progress.note, runner.cancel):
                for event in runner.events():
                    progress.show(event)
                    if isinstance(event, RunFinished):
                        summary = event.summary
            entry = dataclasses.replace(
                entry, run_dir=str(run_dir), scenarios=list(summary.scenarios)
            )
            combined.interpreters.append(entry)
            progress.note(f"   {entry.label}: {time.monotonic() - started:.0f} s")
            if runner.cancelled:
                _write(combined, args, progress.note)
                return EXIT_INTERRUPTED
            failed |= any(s.status not in ("ok", "skipped") for s in summary.scenarios)
    table = render_table(combined)
    _write(combined, args, progress.note)
    print(table)
    if args.app and (code := open_interpreters(combined)):
        return code  # 130: Ctrl-C in the app
    return 1 if failed else 0


def _columns(entry: InterpreterRun) -> list[tuple[InterpreterRun, dict[str, str]]]:
    """The columns of one interpreter with the environment each runs with: two for a build
    with the experimental JIT (``interpreters.resolve.plan_columns``: jit on, jit off)."""
    if entry.error is not None or entry.python.jit is None:
        return [(entry, {})]
    return [
        (dataclasses.replace(entry, python=column.info, scenarios=[]), column.env)
        for column in plan_columns(entry.python)
    ]


def _refuse_too_old(python: str, requested: str) -> None:
    """Exit 2 before anything runs when ``python`` is not a Python that answers (``/bin/echo``)
    or is older than the workers need: bad input costs no measurement."""
    info = describe(python)  # UsageError: it cannot be run or did not describe itself
    try:
        version = tuple(int(part) for part in info.version.split(".")[:2])
    except ValueError:
        return
    if version < MIN_WORKER_PYTHON:
        need = ".".join(map(str, MIN_WORKER_PYTHON))
        raise UsageError(
            f"--python {requested} is {info.implementation} {info.version}; the workers need "
            f"Python {need} or newer; fix: give a newer interpreter (e.g. --python {need})"
        )


def _prepare(
    python: str | None, requested: str, no_provision: bool, note: Callable[[str], None]
) -> InterpreterRun:
    """Describe (and provision) one interpreter; ``error`` says why it cannot run."""
    if python is None:
        return InterpreterRun(python=this_python())
    try:
        info = describe(python)
    except UsageError as exc:
        unknown = PythonInfo("?", requested, python, free_threaded=False, jit=None)
        return InterpreterRun(python=unknown, error=str(exc))
    if no_provision:
        return InterpreterRun(python=info)
    try:
        env = provision(python, info.version, note)
    except ProvisionError as exc:
        return InterpreterRun(python=info, error=str(exc))
    if env.reused:
        note(f"{info.label}: reusing its environment {env.folder}")
    return InterpreterRun(python=info, provision=env)


def _write(
    combined: InterpretersSummary, args: argparse.Namespace, note: Callable[[str], None]
) -> None:
    if args.json is not None:
        combined.save(args.json)
        note(f"wrote {args.json}")
    if args.markdown is not None:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(render_table(combined) + "\n", encoding="utf-8")
        note(f"wrote {args.markdown}")


COMMAND = Command(
    "interpreters", HELP, DESCRIPTION, run, (add_options,), parser_options=PARSER_OPTIONS
)
