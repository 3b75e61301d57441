"""``overhead-tui watch FILE.py``: measure a scenario file, then again each time it is saved,
saying what changed (time, the rank test, each layer of the breakdown, its place on the
ladder).  The file is watched through the OS's file events (inotify, via ``watchfiles``),
never polled, and nothing is read while a rung is timed: the watcher only wakes between
measurements."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from datetime import datetime
from pathlib import Path

from overhead_tui.analysis.watch import (
    Version,
    change,
    ladder_place,
    layer_changes,
    sparkline,
    version_of,
)
from overhead_tui.commands.arguments import positive_int
from overhead_tui.commands.common import (
    add_measurement_options,
    check_request,
    prepare_cache,
    settings_from,
    stop_on_signals,
)
from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.engine.events import RunFinished
from overhead_tui.engine.run_dir import (
    check_runs_parent,
    default_runs_dir,
    latest_ladder,
    new_run_dir,
)
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import EXIT_INTERRUPTED, UsageError
from overhead_tui.plugins.scenarios import ScenarioSpec, read_spec
from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import fmt_gflops, fmt_seconds

HELP = "measure a scenario file each time it is saved, and say what changed"
DESCRIPTION = (
    "Measure FILE.py (a scenario file: `overhead-tui new NAME` writes one), then again on "
    "every save: its median with the middle half of its samples, faster or slower than the "
    "last save by the rank test, each layer of its breakdown against the last, and its place "
    "on your latest saved ladder. A broken save (syntax error, failed validation, an "
    "exception, a timeout) is one line, and the last good result stays. Each measurement is "
    "appended to a history file; --json / --markdown export it on exit. Ctrl-C stops."
)
DEBOUNCE_MS = 300
"""Saves within this many ms are measured once (an editor's write, rename and touch)."""
WATCH_STARTED_MS = 100
"""How soon the watch reports that it is in place (an empty set of changes)."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``watch``."""
    parser.add_argument("file", type=Path, metavar="FILE.py", help="the scenario file to watch")
    parser.add_argument("--size", type=positive_int, metavar="N", help="matrix order n")
    add_measurement_options(parser, repeats=7, min_time_s=0.05, unit="measurement")
    parser.add_argument(
        "--count",
        type=positive_int,
        metavar="K",
        help="stop after K measurements (default: until Ctrl-C)",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="export the history as JSON")
    parser.add_argument(
        "--markdown", type=Path, metavar="PATH", help="export the history as a Markdown table"
    )


def run(args: argparse.Namespace) -> int:
    """Measure, then watch; 130 on Ctrl-C, 0 after --count measurements."""
    path = _check_file(args.file)
    exports = {"--json": args.json, "--markdown": args.markdown}
    check_export_paths(exports, None)
    for option, given in exports.items():
        if given is not None and given.resolve() == path:
            raise UsageError(f"{option} {given} is the watched file; fix: give another file name")
    check_runs_parent(_runs_parent(args))
    try:
        spec = read_spec(path)
    except UsageError:
        spec = None  # broken from the start: said when measured, then watched for a fix
    if spec is not None:
        check_request([spec], settings_from(args, size=args.size, scenarios=[spec.name]))
    prepare_cache()
    stop = threading.Event()
    watcher = Watcher(path, args, stop)
    with stop_on_signals(watcher.note, watcher.cancel):
        watcher.measure()
        while not stop.is_set() and not watcher.done:
            if not watcher.wait_for_save():
                break
            watcher.measure()
    watcher.export(args.json, args.markdown)
    if watcher.cancelled:
        return EXIT_INTERRUPTED
    return 0 if watcher.history and watcher.history[-1].ok else 1


def _runs_parent(args: argparse.Namespace) -> Path:
    """Where each measurement's run folder goes: ``--out``, else ``watch/`` under the user
    data dir."""
    out = getattr(args, "out", None)
    return Path(out) if out is not None else default_runs_dir().parent / "watch"


def _check_file(path: Path) -> Path:
    """``path`` resolved, a readable ``.py`` file.

    Raises:
        UsageError: it is missing, a folder, or not a ``.py`` file.
    """
    if path.suffix != ".py":
        raise UsageError(f"{path} is not a .py file; fix: give a scenario file (overhead-tui new)")
    if not path.is_file():
        raise UsageError(f"{path} does not exist; fix: `overhead-tui new NAME` writes one")
    return path.resolve()


class Watcher:
    """One watched file: its measurements so far (:attr:`history`), the last good one, and
    where each goes (stdout, the history file)."""

    def __init__(self, path: Path, args: argparse.Namespace, stop: threading.Event) -> None:
        self.path = path
        self.args = args
        self.stop = stop
        self.history: list[Version] = []
        self.cancelled = False
        self.runner: Runner | None = None
        self.ladder = latest_ladder()
        self.measured_text: str | None = None

    @property
    def done(self) -> bool:
        """True once --count saves were handled (measured, or refused with their reason)."""
        return self.args.count is not None and len(self.history) >= self.args.count

    def note(self, text: str) -> None:
        """One line on stdout, flushed."""
        print(text, flush=True)

    def cancel(self) -> None:
        """Stop (from a signal handler): the running worker, and the wait for a save."""
        self.cancelled = True
        self.stop.set()
        if self.runner is not None:
            self.runner.cancel()

    def wait_for_save(self) -> bool:
        """Block until the file is written again (its folder's file events, debounced); False
        when stopped.  Called between measurements only, so nothing wakes while one is timed;
        a save made while the last one ran (before this watch began) is seen by comparing the
        file with what was measured, once the watch is in place."""
        import watchfiles

        target = str(self.path)
        placed = False
        for changes in watchfiles.watch(
            self.path.parent,
            debounce=DEBOUNCE_MS,
            stop_event=self.stop,
            raise_interrupt=False,
            recursive=False,
            rust_timeout=WATCH_STARTED_MS,
            yield_on_timeout=True,
        ):
            if not placed:  # the watch is in place: a save from before it is in the file
                placed = True
                if self._text() != self.measured_text:
                    return True
            if any(p == target and c != watchfiles.Change.deleted for c, p in changes):
                return True
        return False

    def _text(self) -> str | None:
        """The file's text now (None when it cannot be read)."""
        try:
            return self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def measure(self) -> None:
        """Read the file (one line and no measurement when it does not parse), measure it in
        a worker, print what changed, append it to the history."""
        when = datetime.now().strftime("%H:%M:%S")
        self.measured_text = self._text()
        try:
            spec = read_spec(self.path)
        except UsageError as exc:
            self._failed(when, "not measured", str(exc), Version(when, "not measured", str(exc)))
            return
        result = self._run(spec)
        if result is None:
            return
        version = version_of(result, when)
        if not version.ok:
            self._failed(when, version.status, version.error or version.status, version)
            return
        self._report(spec, version)
        self.history.append(version)
        self._append(self.path.stem, version)

    def _run(self, spec: ScenarioSpec) -> ScenarioResult | None:
        settings = settings_from(self.args, size=self.args.size, scenarios=[spec.name])
        self.runner = Runner([spec], settings, new_run_dir(_runs_parent(self.args) / spec.name))
        summary = None
        for event in self.runner.events():
            if isinstance(event, RunFinished):
                summary = event.summary
        self.runner = None
        if summary is None or self.cancelled:
            return None
        return summary.scenario(spec.name)

    def _failed(self, when: str, status: str, why: str, version: Version | None = None) -> None:
        last = self._last_good()
        kept = (
            f"; the last good result stays: {fmt_seconds(last.median_s)}"
            if last is not None
            else ""
        )
        self.note(f"[{when}] {self.path.name}: {status}: {why.splitlines()[0]}{kept}")
        if version is not None:
            self.history.append(version)
            self._append(self.path.stem, version)

    def _last_good(self) -> Version | None:
        return next((v for v in reversed(self.history) if v.ok), None)

    def _report(self, spec: ScenarioSpec, version: Version) -> None:
        samples = sorted(version.samples_s)
        low, high = samples[len(samples) // 4], samples[(3 * len(samples)) // 4]
        line = (
            f"[{version.when}] {spec.name}: {fmt_seconds(version.median_s)} "
            f"[{fmt_seconds(low)}–{fmt_seconds(high)}]  {fmt_gflops(version.gflops)} GFLOP/s"
        )
        last = self._last_good()
        if last is not None and (changed := change(last, version)):
            line += f"  {changed}"
        self.note(line)
        if version.gflops and (place := ladder_place(version.gflops, self.ladder, spec.name)):
            self.note(f"    ladder (its rungs each at their own n): {place}")
        if last is not None and (layers := layer_changes(last, version)):
            self.note(f"    why: {', '.join(layers)}")
        times = [v.median_s for v in self.history if v.ok and v.median_s] + [version.median_s]
        if len(times) > 1:
            self.note(
                f"    last {len(times)}: {sparkline([t for t in times if t])} (time per call)"
            )

    def _append(self, name: str, version: Version) -> None:
        """Append ``version`` to ``watch/NAME.jsonl`` under the user data dir (never fatal)."""
        path = default_runs_dir().parent / "watch" / f"{name}.jsonl"
        record = {
            "at": datetime.now().isoformat(timespec="seconds"),
            "file": str(self.path),
            "n": version.n,
            "dtype": self.args.dtype,
            **_as_json(version),
        }
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
        except OSError as exc:
            print(f"overhead-tui: history not kept ({exc})", file=sys.stderr)

    def export(self, json_path: Path | None, markdown_path: Path | None) -> None:
        """Write the session's measurements as JSON and/or a Markdown table."""
        if json_path is not None:
            json_path.write_text(json.dumps([_as_json(v) for v in self.history], indent=2))
        if markdown_path is not None:
            lines = ["| time | status | median | GFLOP/s |", "|---|---|---:|---:|"]
            for v in self.history:
                median = fmt_seconds(v.median_s) if v.ok else "—"
                lines.append(f"| {v.when} | {v.status} | {median} | {fmt_gflops(v.gflops)} |")
            markdown_path.write_text("\n".join(lines) + "\n")


def _as_json(version: Version) -> dict[str, object]:
    return {
        "when": version.when,
        "status": version.status,
        "error": version.error,
        "median_s": version.median_s,
        "gflops": version.gflops,
        "samples_s": version.samples_s,
        "layers_ns_per_fma": version.layers_ns,
    }
