"""Arguments and checks shared by the commands that run scenarios (``run`` and the app)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from overhead_tui.commands.arguments import (
    non_negative_int,
    positive_int,
    sample_seconds,
    seconds_to_wait,
)
from overhead_tui.engine.interrupts import STOP_SIGNALS
from overhead_tui.engine.plan import size_for
from overhead_tui.errors import EXIT_USAGE, UsageError
from overhead_tui.interpreters.check import verified_python
from overhead_tui.kit.folders import ensure_cache
from overhead_tui.machine.host import available_memory_bytes
from overhead_tui.plugins.scenarios import SUPPORTED_DTYPES, ScenarioSpec, discover
from overhead_tui.plugins.selection import SETS, select
from overhead_tui.summary.interpreters import InterpretersSummary
from overhead_tui.summary.product import estimated_bytes
from overhead_tui.summary.records import RunSummary, Settings
from overhead_tui.summary.validation import SummaryError

if TYPE_CHECKING:
    from overhead_tui.tui.app import OverheadApp


def add_scenario_choice(
    parser: argparse.ArgumentParser,
    help: str = "run this scenario (repeatable; default: the default set)",
) -> None:
    """``--scenario NAME``, ``--set NAME`` and ``--scenarios-dir DIR`` (each repeatable)."""
    parser.add_argument("--scenario", action="append", default=[], metavar="NAME", help=help)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME",
        dest="sets",
        help="run the scenarios of this named set instead of the default set (repeatable; "
        "with --scenario, both): "
        + "; ".join(f"{name}: {what}" for name, what in SETS.items())
        + " (`overhead-tui list` shows each scenario's sets)",
    )
    add_scenario_dirs(parser)


def add_scenario_dirs(parser: argparse.ArgumentParser) -> None:
    """``--scenarios-dir DIR`` (repeatable)."""
    parser.add_argument(
        "--scenarios-dir",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="also discover scenarios in DIR (repeatable); files are read like the built-ins",
    )


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose and configure a ladder run."""
    add_scenario_choice(parser)
    parser.add_argument(
        "--size",
        type=positive_int,
        metavar="N",
        help="matrix order n for every scenario (default: each one's own)",
    )
    add_measurement_options(parser)


def add_measurement_options(
    parser: argparse.ArgumentParser,
    repeats: int = 7,
    min_time_s: float = 0.05,
    unit: str = "scenario",
) -> None:
    """How each worker measures (dtype, samples, timeout, seed, interpreter, probes, output
    folder): the options ``run`` and ``sweep`` share; ``unit`` names what one worker times."""
    parser.add_argument(
        "--dtype",
        choices=SUPPORTED_DTYPES,
        default="float64",
        help="element type (default: float64)",
    )
    parser.add_argument(
        "--repeats",
        type=positive_int,
        default=repeats,
        metavar="R",
        help=f"timed samples per {unit} (default: {repeats})",
    )
    parser.add_argument(
        "--timeout",
        type=seconds_to_wait,
        default=120.0,
        metavar="S",
        help=f"seconds before a {unit}'s worker is killed (default: 120)",
    )
    parser.add_argument(
        "--min-time",
        type=sample_seconds,
        default=min_time_s,
        metavar="S",
        help=f"target length of a timed sample in seconds: the calls per sample are calibrated "
        f"to it, so a sample may come out a little shorter (default: {min_time_s:g})",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="input matrices' seed (default: 0)"
    )
    parser.add_argument(
        "--python", metavar="PATH", help="interpreter for the workers (default: this one)"
    )
    probes = parser.add_mutually_exclusive_group()  # both at once: one line, exit 2
    probes.add_argument(
        "--no-probes",
        action="store_true",
        help="skip the probes: no model breakdowns, no measured clock, peaks or bandwidth",
    )
    probes.add_argument(
        "--refresh-probes",
        action="store_true",
        help="re-measure the probes even if this machine's cache is current",
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="run directory (default: a new one under the user data dir)",
    )


def add_export_options(parser: argparse.ArgumentParser, **helps: str) -> None:
    """``--NAME PATH`` per keyword, in order: files to export to (see check_export_paths)."""
    for name, help in helps.items():
        parser.add_argument(f"--{name}", type=Path, metavar="PATH", help=help)


def settings_from(args: argparse.Namespace, **chosen: Any) -> Settings:
    """:class:`Settings` from parsed run options; ``chosen`` replaces the ``size`` and
    ``scenarios`` they give (a sweep: no ``--size``, each point sets its own; the scenarios
    as discovered).

    Raises:
        UsageError: the samples cannot fit in the timeout (:func:`check_samples_fit`).
    """
    chosen = {
        "size": getattr(args, "size", None),
        "scenarios": list(args.scenario),
        "sets": list(getattr(args, "sets", [])),
        **chosen,
    }
    settings = Settings(
        dtype=args.dtype,
        repeats=args.repeats,
        seed=args.seed,
        timeout_s=args.timeout,
        min_sample_s=args.min_time,
        python=args.python,
        scenarios_dirs=[str(d) for d in args.scenarios_dir],
        probes=not args.no_probes,
        refresh_probes=args.refresh_probes,
        **chosen,
    )
    check_samples_fit(settings)
    return settings


def checked_request(args: argparse.Namespace) -> tuple[list[ScenarioSpec], Settings]:
    """Discover and select scenarios and check the request before anything runs.

    Raises:
        UsageError: unknown scenario, broken scenario file, no chosen scenario computing the
            dtype, size out of range or too big for memory, unusable interpreter, an
            ``OVERHEAD_TUI_PEAK_ISA`` this CPU lacks.
    """
    settings = settings_from(args)
    specs = select(discover(list(args.scenarios_dir)), list(args.scenario), args.sets)
    check_request(specs, settings)
    return specs, settings


def check_request(specs: list[ScenarioSpec], settings: Settings) -> None:
    """The checks of :func:`checked_request` on chosen ``specs``: one of them computes the
    dtype, the sizes fit, the forced peak ISA exists here, the interpreter works
    (``settings.python`` is set to its resolved path).

    Raises:
        UsageError: naming the problem and the fix.
    """
    from overhead_tui.engine.plan import rung_dtype
    from overhead_tui.engine.probe_runs import check_peak_isa

    if not any(rung_dtype(s, settings) in s.dtypes for s in specs):  # an engine rung: its own
        shown = ", ".join(f"{s.name} ({'/'.join(s.dtypes)})" for s in specs[:3])
        raise UsageError(
            f"no chosen scenario computes {settings.dtype}: {shown}"
            + (" …" if len(specs) > 3 else "")
            + f"; fix: --dtype {specs[0].dtypes[0]}, or scenarios that compute {settings.dtype} "
            "(`overhead-tui list` shows each one's dtypes)"
        )
    check_sizes(specs, settings)
    if settings.probes:
        check_peak_isa()
    if settings.python is not None:
        settings.python = verified_python(settings.python)


def prepare_cache(note: Callable[[str], None] | None = None) -> None:
    """Check the user cache dir before measuring; if it is unwritable, ``note`` the warning
    (a temporary cache is used instead, see :func:`folders.ensure_cache`), and if its probe
    cache file cannot be read, that it is measured again (``probe_runs.unreadable_cache``).

    Raises:
        UsageError: no writable cache folder at all.
    """
    from overhead_tui.engine.probe_runs import unreadable_cache

    for warning in (ensure_cache(), unreadable_cache()):
        if warning is not None:
            (note or _print_err)(f"overhead-tui: {warning}")


def _print_err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def check_samples_fit(settings: Settings) -> None:
    """Reject ``repeats`` samples of at least ``min_sample_s`` each that take longer than the
    worker's ``timeout_s`` (a rung in one worker would always time out).

    Raises:
        UsageError: with the three settings and the fix.
    """
    least_s = settings.repeats * settings.min_sample_s
    if least_s > settings.timeout_s:
        raise UsageError(
            f"--repeats {settings.repeats} samples of at least --min-time "
            f"{settings.min_sample_s:g} s take {least_s:.3g} s, longer than --timeout "
            f"{settings.timeout_s:g} s; fix: fewer --repeats or a longer --timeout"
        )


def check_sizes(specs: list[ScenarioSpec], settings: Settings) -> None:
    """Reject sizes above a scenario's maximum or too big for the available memory.

    Raises:
        UsageError: naming the scenario, its maximum, and the fix.
    """
    available = available_memory_bytes()
    for spec in specs:
        n = size_for(spec, settings)
        if n > spec.max_size:
            others = (  # a choice among several scenarios can leave this one out
                f", or select the scenarios to run without {spec.name} (--scenario NAME ...)"
                if len(specs) > 1
                else ""
            )
            raise UsageError(
                f"size {n} is above {spec.name}'s maximum of {spec.max_size}; fix: use a size "
                f"of {spec.max_size} or less{others}"
            )
        need = estimated_bytes(n, settings.dtype)
        if available is not None and need > available:
            raise UsageError(
                f"size {n} needs about {need / 2**30:.1f} GiB for {spec.name}'s matrices but "
                f"only {available / 2**30:.1f} GiB is available; fix: choose a smaller --size"
            )


def stderr_is_tty() -> bool:
    """True when progress may be drawn on stderr."""
    return sys.stderr.isatty()


@contextlib.contextmanager
def stop_on_signals(note: Callable[[str], None], cancel: Callable[[], None]) -> Iterator[None]:
    """While inside, Ctrl-C, SIGTERM or SIGHUP call ``cancel`` once (a second one forces).

    The first signal prints a note and restores the previous handlers, so a second Ctrl-C
    interrupts at once; the handlers are restored on exit in any case.
    """
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    def on_stop(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        note(f"interrupted ({name}): stopping the running worker (Ctrl-C again to force)")
        restore()
        cancel()

    for sig in STOP_SIGNALS:
        signal.signal(sig, on_stop)
    try:
        yield
    finally:
        restore()


def settings_problem(settings: Settings) -> str | None:
    """Why ``settings`` cannot run (unknown scenario, size out of range), or None."""
    try:
        found = discover([Path(d) for d in settings.scenarios_dirs])
        specs = select(found, settings.scenarios, settings.sets)
        check_sizes(specs, settings)
        check_samples_fit(settings)
    except UsageError as exc:
        return str(exc)
    return None


def run_app(app: OverheadApp) -> int:
    """Run ``app`` to its end; its exit code: 0 when quit, 130 when interrupted (Ctrl-C,
    SIGINT, SIGTERM, SIGHUP).  Its farewell (what was stopped and where what finished is kept)
    goes to stderr once the terminal is restored, where it stays readable."""
    app.run()
    if app.farewell:
        print(app.farewell, file=sys.stderr)
    return app.return_code or 0


def open_summary(summary: RunSummary) -> int:
    """Open the app on ``summary``: a summary with a sweep opens on the Sweep screen, one
    with ``shapes`` on the Shapes screen; the app's exit code (``commands.common.run_app``)."""
    from overhead_tui.tui.app import OverheadApp

    return run_app(OverheadApp(summary=summary, settings_problem=settings_problem))


EXIT_NO_TTY = EXIT_USAGE
"""The exit status of a command that needs the app without a terminal (bad input)."""


def require_terminal(
    instead: str = "for a headless run use `overhead-tui run` (see `overhead-tui run --help`)",
) -> bool:
    """True on a terminal; else one line saying what to use ``instead`` (and False)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return True
    print(
        f"overhead-tui: the app needs a terminal (stdin and stdout are not a TTY); {instead}",
        file=sys.stderr,
    )
    return False


def open_interpreters(combined: InterpretersSummary) -> int:
    """Open the app on the baseline's run with the *Interpreters* screen on top; its exit code
    (130 when interrupted, see ``commands.common.run_app``)."""
    from overhead_tui.tui.app import OverheadApp

    return run_app(
        OverheadApp(
            summary=baseline_summary(combined),
            interpreters=combined,
            settings_problem=settings_problem,
        )
    )


def baseline_summary(combined: InterpretersSummary) -> RunSummary:
    """The baseline interpreter's run: its ``summary.json`` when its run directory is still
    there, else a summary of its scenarios from the combined file."""
    first = combined.interpreters[0] if combined.interpreters else None
    if first is not None and first.run_dir:
        try:
            return RunSummary.load(Path(first.run_dir))
        except SummaryError:
            pass
    summary = RunSummary(settings=dataclasses.replace(combined.settings))
    summary.scenarios = list(first.scenarios) if first is not None else []
    summary.run_dir = first.run_dir if first is not None else None
    return summary
