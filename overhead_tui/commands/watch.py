"""``overhead-tui watch FILE.py``: measure a scenario file, then again each time it is saved,
saying what changed (time, the rank test, each layer of the breakdown, its place on the
ladder).  The file is watched through the OS's file events (inotify, via ``watchfiles``),
never polled, and nothing is read while a rung is timed: the watcher only wakes between
measurements."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from overhead_tui.commands.arguments import positive_int
from overhead_tui.commands.command import Command
from overhead_tui.commands.common import (
    add_export_options,
    add_measurement_options,
    check_request,
    prepare_cache,
    settings_from,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.run_dir import resolve_runs_parent
from overhead_tui.engine.watch import (
    WatchSession,
    default_watch_runs,
    history_dir,
    resolve_watched_file,
)
from overhead_tui.errors import EXIT_INTERRUPTED, EXIT_USAGE, UsageError
from overhead_tui.plugins.scenarios import read_spec
from overhead_tui.present.watch_text import history_markdown, save_lines
from overhead_tui.summary.records import Settings

HELP = "measure a scenario file each time it is saved, and say what changed"
DESCRIPTION = (
    "Measure FILE.py (a scenario file: `overhead-tui new NAME` writes one), then again on "
    "every save: its median with the middle half of its samples, faster or slower than the "
    "last save by the rank test, each layer of its breakdown against the last, and its place "
    "on your latest saved ladder. A broken save (syntax error, failed validation, an "
    "exception, a timeout) is one line, and the last good result stays. Each measurement is "
    "appended to a history file; --json / --markdown export it on exit. Ctrl-C stops. "
    "--app shows the same in the app's Watch screen."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``watch``."""
    parser.add_argument("file", type=Path, metavar="FILE.py", help="the scenario file to watch")
    parser.add_argument("--size", type=positive_int, metavar="N", help="matrix order n")
    add_measurement_options(parser, repeats=7, min_time_s=0.05, unit="measurement")
    parser.add_argument(
        "--count",
        type=positive_int,
        metavar="K",
        help="stop after K measurements, the first included (default: until Ctrl-C)",
    )
    add_export_options(
        parser, json="export the history as JSON", markdown="export the history as a Markdown table"
    )
    parser.add_argument(
        "--app", action="store_true", help="watch in the app (its Watch screen) instead"
    )


def run(args: argparse.Namespace) -> int:
    """Measure, then watch; 130 on Ctrl-C, 0 after --count measurements, 1 when the last
    save was not measured."""
    path = resolve_watched_file(args.file)
    exports = {"--json": args.json, "--markdown": args.markdown}
    check_export_paths(exports, None)
    for option, given in exports.items():
        if given is not None and _same_file(given, path):
            raise UsageError(f"{option} {given} is the watched file; fix: give another file name")
    runs_parent = Path(args.out) if getattr(args, "out", None) else default_watch_runs()
    resolve_runs_parent(runs_parent)
    try:
        spec = read_spec(path)
    except UsageError:
        spec = None  # broken from the start: said when measured, then watched for a fix
    name = spec.name if spec is not None else path.stem
    settings = settings_from(args, size=args.size, scenarios=[name])
    if spec is not None:
        check_request([spec], settings)
    if args.app:
        return _in_app(path, settings, runs_parent, args)
    prepare_cache()
    session = WatchSession(path, settings, runs_parent, count=args.count)
    with stop_on_signals(lambda _: _say(_stopping(session)), session.cancel):
        _measure(session)
        while not session.done and session.wait_for_save():
            _measure(session)
    try:
        export(session, args.json, args.markdown)
    except OSError as exc:
        kept = history_dir()
        print(
            f"overhead-tui: error: cannot write {exc.filename or 'the export'}: {exc.strerror}; "
            f"every save is kept in {kept}; fix: give --json/--markdown a writable folder",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if session.cancelled:
        return EXIT_INTERRUPTED
    return 0 if session.history and session.history[-1].ok else 1


def _in_app(path: Path, settings: Settings, runs_parent: Path, args: argparse.Namespace) -> int:
    from overhead_tui.commands.common import require_terminal, run_app, settings_problem
    from overhead_tui.tui.app import OverheadApp

    if args.json or args.markdown or args.count:
        raise UsageError("--json, --markdown and --count are for the command; fix: drop --app")
    if not require_terminal("for a headless watch drop --app"):
        return EXIT_USAGE
    prepare_cache()
    app = OverheadApp(settings, autorun=False, settings_problem=settings_problem, watch=path)
    app.watch_runs = runs_parent
    return run_app(app)


def _same_file(given: Path, path: Path) -> bool:
    """True when ``given`` exists and is the file ``path`` (by any name: a relative path, a
    symlink, a hard link)."""
    try:
        return given.exists() and given.samefile(path)
    except OSError:
        return False


def _stopping(session: WatchSession) -> str:
    """What a stop signal stops: the watch, and the measuring worker when one runs."""
    what = "the measuring worker is killed; " if session.run is not None else ""
    return f"interrupted: stopped watching ({what}every save is kept in {history_dir()})"


def _say(text: str) -> None:
    print(text, flush=True)


def _measure(session: WatchSession) -> None:
    """Measure the file once and print what changed (nothing when stopped meanwhile)."""
    saved = session.measure()
    if saved is None:
        return
    for line in save_lines(saved, session.path.name, session.history, session.ladder):
        _say(line)
    if saved.history_error:
        print(f"overhead-tui: {saved.history_error}", file=sys.stderr)


def export(session: WatchSession, json_path: Path | None, markdown_path: Path | None) -> None:
    """Write the session's versions as JSON and/or a Markdown table."""
    if json_path is not None:
        json_path.write_text(json.dumps([v.to_json() for v in session.history], indent=2))
    if markdown_path is not None:
        markdown_path.write_text(history_markdown(session.history))


COMMAND = Command("watch", HELP, DESCRIPTION, run, (add_options,))
