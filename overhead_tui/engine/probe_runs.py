"""Probe runs: out-of-process measurement of the probes and a per-machine cache.

Each probe (``plugins.probes``) is measured in several worker processes; results are cached in
the user cache dir (platformdirs), keyed by the CPU model, the CPUs the run may use (affinity
and cgroup quota), the interpreter (path, version and prefix), numba's target and the probe
files' contents, so they are re-measured when any of
these changes, or on request (``overhead-tui probes --refresh``).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import IO, Any

from overhead_tui.engine.events import ProbeStarted
from overhead_tui.engine.package import package_file
from overhead_tui.engine.probe_costs import read_costs, time_left, write_costs
from overhead_tui.engine.run_log import log_line
from overhead_tui.engine.spawn import (
    Cancel,
    run_command,
    worker_command,
    worker_env,
)
from overhead_tui.errors import UsageError
from overhead_tui.kit.probing import settled
from overhead_tui.kit.simd import PEAK_ISA_VARIABLE, best_isa, chosen_isa
from overhead_tui.machine.cgroup import cpus_seen
from overhead_tui.machine.host import cpu_model, other_cpu_fraction, read_cpu_times
from overhead_tui.plugins.probes import ProbeSpec, discover_probes
from overhead_tui.summary.codec import to_json, write_atomic
from overhead_tui.summary.probes import ProbeResult, probe_records
from overhead_tui.summary.records import Settings
from overhead_tui.worker.cpu_time import own_cpu_s
from overhead_tui.worker.protocol import Probe, worker_task

PROBE_TIMEOUT_S = 120.0
"""Seconds before a probe's worker is killed."""


PROCESSES = 3
"""Worker processes per probe at most; the value is their median (see :func:`measure_probe`)."""

TIGHT = 0.03
"""A probe stops after :data:`FIRST_PROCESSES` processes whose values agree within this share
of their median: a third process would move a median of three by at most the range of two
(3 %, inside the 5 % that the run-to-run checks of ``machine.facts`` accept).  Measured on a
2-vCPU Zen 3 (2026-12-07): the clock probe's processes agree within 1 %, the interpreted
probes' within 15–90 % on that shared host, so there the rule saves the clock and the
compiled peaks a process each and changes nothing else."""
FIRST_PROCESSES = 2
"""Processes a probe always runs before :data:`TIGHT` may stop it (one process has no
run-to-run spread)."""

INTERPRETED_PROBE_LAYERS = (
    "interpreter_dispatch",
    "boxing",
    "container_access",
    "call_overhead",
    "library_layers",
)
"""Layers of the probes whose costs are paid in the eval loop: their workers also time the
dispatch probe's reference loop (``reference_dispatch_ns``), so the model can bring their costs
to the dispatch probe's speed (``analysis.unit_costs``)."""


NUMBA_TARGET_VARS = ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")
"""Environment variables choosing the code numba compiles (part of the cache key, with the
peak kernels' :func:`peak_isa`)."""


def peak_isa() -> str | None:
    """``OVERHEAD_TUI_PEAK_ISA`` normalised (stripped, lower case; blank: unset)."""
    return os.environ.get(PEAK_ISA_VARIABLE, "").strip().lower() or None


def check_peak_isa() -> None:
    """Refuse, before anything is measured, an ``OVERHEAD_TUI_PEAK_ISA`` the peak kernels
    would refuse on this CPU (``kit.simd.chosen_isa``, best ISA from /proc/cpuinfo).

    Raises:
        UsageError: one line naming the value and the fix.
    """
    forced = peak_isa()
    if forced is None:
        return
    from overhead_tui.machine.cpu import read_cpu_model

    cpu = read_cpu_model()
    try:
        chosen_isa(best_isa(cpu.isa) if cpu else "avx512", forced)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


PROBE_CODE = ("overhead_tui.api", "overhead_tui.kit", "overhead_tui.worker")
"""The package's code the probes run on: ``api``, the whole kit (the timing, chains, SIMD and
C-build helpers it hands to probe files) and the whole worker package (its entry, the bytecode
counting), every ``.py`` file in them.  A change to any of them changes the probe cache's
key, so the probes are measured again; a module here that moved is an error, never skipped."""


def probe_code_files() -> list[Path]:
    """The files of :data:`PROBE_CODE`, sorted (a package counts with every module in it)."""
    files: list[Path] = []
    for module in PROBE_CODE:
        path = package_file(module)
        files += sorted(path.parent.rglob("*.py")) if path.name == "__init__.py" else [path]
    return files


def cache_key(specs: list[ProbeSpec], python: str) -> str:
    """Hash of what the probe values depend on: CPU, the CPUs the run may use
    (``machine.cgroup.cpus_seen``), interpreter, the probes' targets, probe sources (the probe
    files and the package modules they measure with).

    The interpreter counts with its ``sys.prefix``: a venv's python is a symlink to its base
    interpreter (the same real path) but brings its own numpy and BLAS.
    """
    digest = hashlib.sha256()
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version); print(sys.prefix)"],
        capture_output=True,
        text=True,
        check=False,
        env=worker_env(),
    ).stdout
    target = [f"{var}={os.environ.get(var)!r}" for var in NUMBA_TARGET_VARS]
    target.append(f"{PEAK_ISA_VARIABLE}={peak_isa()!r}")  # normalised: blank is unset
    if os.environ.get("PYTHON_JIT") is not None:  # a JIT build's on/off column (interpreters)
        target.append(f"PYTHON_JIT={os.environ['PYTHON_JIT']!r}")
    for part in (cpu_model(), cpus_seen(), os.path.realpath(python), version, *target):
        digest.update(part.encode())
    for spec in specs:
        digest.update(spec.path.read_bytes())
    for path in probe_code_files():
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_path() -> Path:
    """The probe cache file (user cache dir)."""
    import platformdirs

    return platformdirs.user_cache_path("overhead-tui", appauthor=False) / "probes.json"


def measure_probe(
    spec: ProbeSpec,
    python: str,
    processes: int | None = None,
    repeats: int = 7,
    min_sample_s: float = 0.004,
    cancel: Cancel | None = None,
) -> ProbeResult:
    """Measure one probe in ``processes`` separate worker processes (errors kept).

    Each timing is calibrated to samples of at least ``min_sample_s`` (4 ms: the interleaved
    min-of-pairs estimate of ``probing.paired_samples`` needs many short samples more than long
    ones, and a compiled kernel's samples stop once they agree, ``probing.SETTLED``).  Measured
    on a 2-vCPU Xeon, 2026-12-02: 25 ms took 55 s, 12 ms 32 s, every value inside the 25 ms
    runs' range but ``numpy_call``, 17 % low once.  On a 2-vCPU Zen 3, 2026-12-07, the twelve
    probes three times each way, alternating: 12 ms took 77–90 s, 4 ms 50–58 s, and every 4 ms
    value was inside the 12 ms runs' range but ``container_access`` (2.77 against 1.60–2.65
    ns/load), ``dispatch`` (2.76 against 3.06–3.63 ns) and ``numpy_call`` (1.14 against
    0.59–0.96 µs): the processes of one setting were up to 267 % apart on that host, so
    neither length is closer to the truth there.

    ``processes`` defaults to the probe's own ``PROCESSES`` declaration, else :data:`PROCESSES`;
    without an explicit ``processes``, the probe stops early once its processes agree
    (:func:`tight`): the ``procs`` column of ``overhead-tui probes`` says how many ran and
    ``spread`` how far apart they were.

    A shared VM runs the same loop at speeds up to 40 % apart from one process to the next,
    so a single process is not a unit cost.  The value is the median of the per-process
    values; ``spread`` is their range over that median (the run-to-run spread); ``samples``
    are the per-process values; each numeric detail (and each position of a list of them) is
    the median of its own per-process values, the others those of the process with the median
    value; ``interval`` and ``detail_intervals`` the per-process ranges (see
    ``analysis.uncertainty``).  A detail is a measurement of its own: the process whose value
    is the median is not the one whose detail is (the ``container_access`` probe's
    ``c_api_load_ns`` came out 5.98 ns, the top of its processes' 3.19–5.98, on a 2-vCPU Zen 3,
    2026-12-07, and priced ``mypyc_naive`` 1.36–1.50 of its time).
    """
    result = ProbeResult(
        spec.name,
        spec.title,
        spec.unit,
        spec.layer,
        interval=None,
        detail_intervals={},
        other_cpu_fraction=None,
        measured_at=None,
    )
    runs: list[Probe] = []
    before, own_before = read_cpu_times(), own_cpu_s(children=True)
    wanted = processes or spec.processes or PROCESSES
    while len(runs) < wanted and not (processes is None and tight(runs)):
        run = _measure_once(spec, python, repeats, min_sample_s, cancel)
        if isinstance(run, str):
            result.error = run
            return result
        runs.append(run)
    result.other_cpu_fraction = other_cpu_fraction(
        before, read_cpu_times(), own_cpu_s(children=True) - own_before
    )
    result.measured_at = time.time()
    values = sorted(r.value or 0.0 for r in runs)  # _measure_once returns values only
    runs.sort(key=lambda r: r.value or 0.0)
    middle = runs[len(runs) // 2]
    value = values[len(values) // 2]
    result.value, result.details = value, dict(middle.details)
    result.samples = values
    result.spread = (max(values) - min(values)) / abs(value) if value else None
    result.details["within_process_spread"] = middle.spread
    result.interval = [min(values), max(values)]
    for key, v in middle.details.items():
        found = [r.details.get(key) for r in runs]
        if _is_number(v) and key != "within_process_spread":
            numbers = [float(x) for x in found if isinstance(x, int | float)]
            result.details[key] = _median_as(v, numbers)  # its own median, as the value's
            result.detail_intervals[key] = [min(numbers), max(numbers)]
        elif isinstance(v, list) and all(isinstance(x, list) and len(x) == len(v) for x in found):
            columns = list(zip(*found, strict=True))  # per position: the L minima, L maxima
            if v and all(map(_is_number, v)):
                result.details[key] = [
                    _median_as(x, [float(y) for y in c]) for x, c in zip(v, columns, strict=True)
                ]
                result.detail_intervals[key] = [min(c) for c in columns] + [max(c) for c in columns]
    return result


def _median_as(like: object, numbers: list[float]) -> float | int:
    """The median of ``numbers``, an int where ``like`` is one and the median is whole (a
    count, a width: the same in every process)."""
    found = statistics.median(numbers)
    return int(found) if isinstance(like, int) and float(found).is_integer() else found


def tight(runs: list[Probe]) -> bool:
    """At least :data:`FIRST_PROCESSES` processes whose values are within :data:`TIGHT` of
    their median: a further process is not needed."""
    return settled([r.value for r in runs if r.value is not None], TIGHT, FIRST_PROCESSES)


def _measure_once(
    spec: ProbeSpec, python: str, repeats: int, min_sample_s: float, cancel: Cancel | None = None
) -> Probe | str:
    """One worker process measuring one probe: its ``probe`` message (with a value), or why
    it gave none."""
    argv = worker_command(
        python,
        worker_task(
            "probe",
            spec,
            repeats=repeats,
            min_sample_s=min_sample_s,
            reference_dispatch=spec.layer in INTERPRETED_PROBE_LAYERS,
        ),
    )
    result = run_command(argv, PROBE_TIMEOUT_S, worker_env(), cancel)
    if result.timed_out:
        return f"no result after {PROBE_TIMEOUT_S:g} s"
    probe = result.message(Probe)
    if probe is not None and probe.value is not None:
        return probe
    if result.worker_error:
        return result.worker_error
    tail = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.returncode}"]
    return f"worker failed: {tail[0][:200]}"


CACHE_ENTRIES = 16
"""Probe results kept per cache file: one entry per (machine, interpreter, probe sources) key,
so alternating interpreters (``overhead-tui interpreters``) reuse each one's values; the
oldest entries beyond this many are dropped."""


def read_cache(key: str, cache: Path | None = None) -> dict[str, ProbeResult] | None:
    """Cached probe results for ``key`` (see :func:`cache_key`), or None when stale or absent."""
    entry = _cache_entries(_read_cache(cache or cache_path())).get(key)
    if entry is None or not all(map(_well_formed, entry.values())):
        return None
    return probe_records(entry)


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_detail_range(x: object) -> bool:
    """A detail's range: [low, high], or for a list detail its L lows then its L highs."""
    return isinstance(x, list) and len(x) >= 2 and len(x) % 2 == 0 and all(map(_is_number, x))


def _well_formed(probe: object) -> bool:
    """True when a cached probe's JSON has the field types :class:`ProbeResult` declares: a
    cache edited by hand or by another tool version is measured again, not read into a crash."""
    if not isinstance(probe, dict):
        return False
    samples, details = probe.get("samples", []), probe.get("details", {})
    ranges = probe.get("detail_intervals", {})
    return (
        all(isinstance(probe.get(k, ""), str) for k in ("name", "title", "unit", "layer"))
        and all(
            probe.get(k) is None or _is_number(probe[k])
            for k in ("value", "spread", "other_cpu_fraction")
        )
        and isinstance(samples, list)
        and all(map(_is_number, samples))
        and isinstance(details, dict)
        and (
            probe.get("interval") is None
            or (_is_detail_range(probe["interval"]) and len(probe["interval"]) == 2)
        )
        and isinstance(ranges, dict)
        and all(map(_is_detail_range, ranges.values()))
        and (probe.get("error") is None or isinstance(probe["error"], str))
    )


def write_cache(key: str, results: dict[str, ProbeResult], cache: Path | None = None) -> None:
    """Store probe results atomically under ``key``, keeping the other keys' entries (the
    newest :data:`CACHE_ENTRIES`).

    The file is ``{"entries": {key: {probe: result}}, "order": [keys, oldest first], "key",
    "probes"}`` (the last two: the newest entry, as the earlier one-key form had it); a file in
    that earlier form is read as one entry.
    """
    cache = cache or cache_path()
    cache.parent.mkdir(parents=True, exist_ok=True)
    data = _read_cache(cache)
    entries = _cache_entries(data)
    stored = data.get("order")
    listed: list[object] = stored if isinstance(stored, list) else []
    order = [k for k in listed if k in entries] + [k for k in entries if k not in listed]
    order = [k for k in order if k != key] + [key]
    order = order[-CACHE_ENTRIES:]
    entries[key] = to_json(results)
    kept = {k: entries[k] for k in order}
    latest = {"key": key, "probes": kept[key]}  # what a one-key reader reads
    text = json.dumps({**latest, "entries": kept, "order": order}, indent=1, sort_keys=True)
    write_atomic(cache, text + "\n")


def _cache_entries(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{key: {probe: result fields}} of a parsed cache file (either form)."""
    entries: dict[str, dict[str, Any]] = {}
    if isinstance(data.get("entries"), dict):
        entries = {k: v for k, v in data["entries"].items() if isinstance(v, dict)}
    if isinstance(data.get("key"), str) and isinstance(data.get("probes"), dict):
        entries[data["key"]] = data["probes"]  # the newest (also what a one-key writer left)
    return entries


def load_probes(
    python: str | None = None,
    refresh: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, ProbeResult]:
    """Probe results for this machine and interpreter: from the cache, or measured now (the
    probes' modules built first, several at once: ``engine.prebuild``).

    Args:
        python: the workers' interpreter (default: this one).
        refresh: measure even when the cache is current.
        progress: called with what is done next: "measuring NAME" before each probe is
            measured, "preparing NAME" before its modules are built (or found cached).
    """
    from overhead_tui.engine.prebuild import builds, prebuild

    python = python or sys.executable
    settings = Settings(python=python, refresh_probes=refresh)
    if len(wanted := builds([], settings, probes_to_measure(settings))) > 1:
        for build in prebuild(wanted, python, Cancel()):
            if progress is not None:
                progress(f"preparing {build.name}")
    steps = probe_results(python, refresh, Cancel())
    while True:
        try:
            started = next(steps)
        except StopIteration as done:
            return done.value or {}
        if progress is not None:
            progress(f"measuring {started.name}")


def probes_to_measure(settings: Settings) -> list[ProbeSpec]:
    """The probes a run will measure: every probe when ``settings.probes`` is on and the
    cache holds no values for this machine and interpreter (or ``refresh_probes``), else
    none; none as well where the probe files cannot be read (the probe step says why)."""
    if not settings.probes:
        return []
    try:
        specs = discover_probes()
        python = settings.python or sys.executable
        cached = None if settings.refresh_probes else read_cache(cache_key(specs, python))
    except (UsageError, OSError):
        return []
    return specs if cached is None else []


def probe_results(
    python: str, refresh: bool, cancel: Cancel
) -> Generator[ProbeStarted, None, dict[str, ProbeResult] | None]:
    """The one cache-or-measure step of the probes: the cached results for this machine and
    ``python`` (unless ``refresh``), else each probe measured in its workers and the cache
    written.  Yields ``ProbeStarted`` (with the time left: :func:`time_left`, from each
    probe's seconds when last measured on this machine) before each probe; returns None when
    ``cancel`` was set (its ``set()`` also kills the probe worker that runs).

    Raises:
        UsageError: ``OVERHEAD_TUI_PEAK_ISA`` names no ISA this CPU has (before measuring).
        OSError: the probe files cannot be read.
    """
    check_peak_isa()
    specs = discover_probes()
    key = cache_key(specs, python)
    cached = None if refresh else read_cache(key)
    if cached is not None:
        return cached
    results = {}
    costs = read_costs(costs_path())
    spent: dict[str, float] = {}
    for index, spec in enumerate(specs):
        if cancel.is_set():
            return None
        yield ProbeStarted(spec.name, index, len(specs), time_left(specs[index:], costs, spent))
        started = time.monotonic()
        results[spec.name] = measure_probe(spec, python, cancel=cancel)
        spent[spec.name] = time.monotonic() - started
    if cancel.is_set():  # the last probe was killed: its error is not a measurement
        return None
    write_cache(key, results)
    write_costs({**costs, **spent}, costs_path())
    return results


def costs_path() -> Path:
    """Where the last measuring of the probes on this machine left each probe's seconds."""
    return cache_path().with_name("probe_costs.json")


def unreadable_cache(path: Path | None = None) -> str | None:
    """Why the probe cache file (default: :func:`cache_path`) that exists cannot be read
    (not UTF-8, not JSON, not an object), or None: readable or absent.  Such a file is read
    as empty (the probes are measured again and it is rewritten); this says so first."""
    return _load_cache(path or cache_path())[1]


def _read_cache(path: Path) -> dict[str, Any]:
    return _load_cache(path)[0]


def _load_cache(path: Path) -> tuple[dict[str, Any], str | None]:
    """The cache file's data ({} when absent or unreadable) and why it could not be read."""
    again = "the probes are measured again"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError) as exc:
        return {}, f"cannot read the probe cache {path} ({exc}); {again}"
    except json.JSONDecodeError as exc:
        return {}, f"the probe cache {path} is not JSON ({exc}); {again}"
    if not isinstance(data, dict):
        return {}, f"the probe cache {path} is not a cache file; {again}"
    return data, None


def median(values: list[float]) -> float | None:
    """Median of ``values`` or None when empty."""
    return statistics.median(values) if values else None


def load_run_probes(
    settings: Settings, cancel: Cancel, log: IO[str]
) -> Generator[ProbeStarted, None, dict[str, ProbeResult] | None]:
    """Probe unit costs for a run or sweep: the per-machine cache, or measured now.

    Yields ``ProbeStarted`` before each probe it measures (one worker each) and returns
    {name: probe result}; None when ``settings.probes`` is off, ``cancel`` was set
    (it also kills the probe worker that runs), or the probe files cannot be read (logged as
    ``probes_failed``).
    """
    if not settings.probes or cancel.is_set():
        return None
    try:
        results = yield from probe_results(
            settings.python or sys.executable, settings.refresh_probes, cancel
        )
    except (UsageError, OSError) as exc:
        log_line(log, "probes_failed", error=str(exc))
        return None
    if results is None:
        return None
    summary = {k: {"value": v.value, "unit": v.unit, "error": v.error} for k, v in results.items()}
    log_line(log, "probes", probes=summary)
    return results
