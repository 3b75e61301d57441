"""The worker: runs one scenario in its own process and reports on a private channel.

Started by the runner as ``python -m overhead_tui.worker TASK_JSON`` (fork+exec, never a bare
fork after BLAS ran).  Messages are JSON lines on a private copy of fd 1, and fd 1 points at
stderr before scenario code is imported: no print corrupts the channel (pyperf's ``--pipe``).

Messages, in order: ``started``, ``environment``, ``build`` (a compiled rung), ``compiled``,
``validated`` (first), ``calibrated``, ``warmup``..., ``reference`` (before), ``timing_started``,
``sample``..., ``timing_ended``, ``reference`` (after), ``validated`` (last), ``counted``,
``reference`` (where the count found bytecode the plan did not expect), ``done``; or ``error``.
``mode: profile`` sends ``profiled``, ``mode: probe`` ``probe``, ``mode: callgrind`` ``done``.
Every message and the task are records in ``worker.protocol``; this module only sends them.
"""

from __future__ import annotations

import faulthandler
import importlib.util
import os
import platform
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import IO, TYPE_CHECKING, Any, Literal

from overhead_tui.summary.measured import BlasLibrary
from overhead_tui.worker.counting.site_timing import reference_samples
from overhead_tui.worker.cpu_time import own_cpu_s, straggler_cores, thread_schedstat
from overhead_tui.worker.process import cap_file_sizes, die_with_parent, file_limit_error
from overhead_tui.worker.protocol import (
    BlasReport,
    Build,
    Calibrated,
    Compiled,
    Done,
    Environment,
    Error,
    ErrorCause,
    Generated,
    Message,
    Probe,
    Profiled,
    ProtocolError,
    PythonReport,
    Reference,
    Resident,
    Sample,
    Started,
    TimingEnded,
    TimingStarted,
    Validated,
    Warmup,
    WorkerTask,
    encode,
)

if TYPE_CHECKING:
    from overhead_tui.worker.validate import Validation

SETTLE_S = 0.05
"""Seconds the worker waits between announcing its timed window and its first sample: the
observer (the app) goes quiet on that announcement, and this lets the repaint it was doing
finish first (a 2-core host has no spare core for it)."""

THREADPOOLCTL_KEYS = (
    "internal_api",
    "version",
    "architecture",
    "num_threads",
    "threading_layer",
    "filepath",
)
"""threadpoolctl's names of the fields of a ``protocol.BlasLibrary``, in their order."""


class _Channel:
    """The event channel: a private duplicate of fd 1, line-buffered JSON lines."""

    def __init__(self) -> None:
        private_fd = os.dup(1)
        os.dup2(2, 1)  # anything written to fd 1 from now on goes to stderr
        sys.stdout = sys.stderr
        self._out: IO[str] = os.fdopen(private_fd, "w", buffering=1, encoding="utf-8")
        self.error_cause: str | None = None
        """The ``kind`` of the error event sent, if one was."""

    def emit(self, message: Message) -> None:
        self._out.write(encode(message) + "\n")
        self._out.flush()


def blas_info() -> BlasReport:
    """numpy's BLAS (library, version, architecture, threads) and ``libraries``: every BLAS
    loaded in this process, numpy's first (threadpoolctl's order is not numpy's first: scipy's
    bundled OpenBLAS may come before it).  numpy's is the one under numpy's own folder
    (``numpy.libs``, ``numpy/.dylibs``); otherwise (a system or conda BLAS) the order stays."""
    import numpy
    from threadpoolctl import threadpool_info

    numpy_prefix = os.path.dirname(os.path.realpath(numpy.__file__))
    blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    # stable sort: the library inside numpy's folder (or numpy.libs beside it) first
    blas.sort(key=lambda p: not os.path.realpath(str(p.get("filepath"))).startswith(numpy_prefix))
    libraries = tuple(BlasLibrary(*(p.get(key) for key in THREADPOOLCTL_KEYS)) for p in blas)
    first = libraries[0] if libraries else BlasLibrary()
    return BlasReport(
        first.library, first.version, first.architecture, first.threads, libraries=libraries
    )


def _numba_state() -> tuple[str | None, int | None]:
    """numba's version and thread count, when the scenario imported it."""
    numba = sys.modules.get("numba")
    if numba is None:
        return None, None
    return numba.__version__, numba.get_num_threads()


def _threading_layer() -> str | None:
    numba = sys.modules.get("numba")
    if numba is None:
        return None
    try:
        return str(numba.threading_layer())
    except ValueError:  # no parallel region has run yet
        return None


def import_scenario(path: str, name: str, probe: bool = False) -> ModuleType:
    """The scenario (or ``probe``) file at ``path``, imported; a C or compiled-Python rung by
    its declarations gets its functions (``kit.c_rung``, ``kit.python_rung``), a scenario
    without ``setup``, ``to_numpy`` or ``NAME`` the defaults (the inputs and the result as
    they are, ``name``: the file's name, ``plugins.scenarios.read_spec``)."""
    spec = importlib.util.spec_from_file_location(f"overhead_scenario_{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    if not probe:
        setattr(module, "NAME", name)  # noqa: B010 (replaced by the file's own NAME, if any)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if probe:
        return module
    from overhead_tui.kit import c_rung, python_rung

    c_rung.complete(module)
    python_rung.complete(module)
    # the inputs as they are (the worker passes copies); validation converts the result
    for function, default in (("setup", _as_given), ("to_numpy", _as_it_is)):
        if not hasattr(module, function):
            setattr(module, function, default)
    return module


def _as_given(a: object, b: object) -> tuple[Any, Any]:
    """A scenario's default ``setup``: A and B as numpy arrays, as the worker made them."""
    return a, b


def _as_it_is(result: object) -> object:
    """A scenario's default ``to_numpy``: its result as it is (``validate`` converts it)."""
    return result


def _require(names: Sequence[str]) -> None:
    """Every module the file ``REQUIRES`` is importable here, whether or not its code imports
    it (ModuleNotFoundError naming the first one missing)."""
    for name in names:
        if importlib.util.find_spec(name) is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def _missing_module(channel: _Channel, task: WorkerTask, exc: ModuleNotFoundError) -> int:
    """A module the scenario or probe imports is missing: ``missing_dependency`` when it is
    one its file ``REQUIRES`` (the fix is to install it), else a plain ``import`` error."""
    kind: ErrorCause = "missing_dependency" if exc.name in task.requires else "import"
    return _error(channel, kind, exc)


def _setup_error(channel: _Channel, exc: BaseException) -> int:
    """A scenario's set-up (its build among it) failed: ``unavailable`` where it raised the
    kit's ``Unavailable`` (the rung cannot run here), else ``setup``."""
    failed: ErrorCause = "unavailable" if type(exc).__name__ == "Unavailable" else "setup"
    return _error(channel, failed, exc)


def _error(channel: _Channel, kind: ErrorCause, exc: BaseException) -> int:
    tb = "".join(traceback.format_exception(exc)[-6:])
    message = f"{type(exc).__name__}: {exc}".strip()
    message = file_limit_error(exc) or message
    module = getattr(exc, "name", None) if isinstance(exc, ImportError) else None
    channel.emit(Error(cause=kind, message=message, traceback=tb, module=module))
    channel.error_cause = kind
    print(f"worker error ({kind}):\n{tb}", file=sys.stderr, end="")  # the log has it too
    return 3


def run(task: WorkerTask, channel: _Channel) -> int:
    """Measure one scenario described by ``task`` and emit events; returns the exit code."""
    import numpy as np

    from overhead_tui.kit.timing import calibrate, quicken, time_calls
    from overhead_tui.worker.inputs import make_inputs
    from overhead_tui.worker.validate import validate

    channel.emit(Started(os.getpid(), task.name, task.n, task.dtype))
    # a rectangular product when the task has m/k: A (m×k), B (k×n)
    a, b = make_inputs(task.n, task.dtype, task.seed, task.m, task.k)
    try:
        _require(task.requires)
        module = import_scenario(task.path, task.name)
    except ModuleNotFoundError as exc:
        return _missing_module(channel, task, exc)
    except Exception as exc:
        return _error(channel, "import", exc)
    # Reported before setup, which may limit BLAS threads: these are the defaults.
    implementation, version = platform.python_implementation(), platform.python_version()
    python = PythonReport(implementation, version, sys.executable)
    numba_version, numba_threads = _numba_state()
    channel.emit(Environment(python, np.__version__, blas_info(), numba_version, numba_threads))
    try:
        args = module.setup(a.copy(), b.copy())
        args = args if isinstance(args, tuple) else (args,)
    except MemoryError as exc:
        return _error(channel, "memory", exc)
    except Exception as exc:
        return _setup_error(channel, exc)
    from overhead_tui.worker.compiled_rung import rung_build

    if (built := rung_build(module, task.name)) is not None:
        channel.emit(Build(built))
    try:
        first_call_s, result = time_calls(module.kernel, args, 1)
        channel.emit(Compiled(first_call_s))
        from overhead_tui.worker.compiled_rung import generated_code, time_resident

        square = task.n if task.m is None and task.k is None else None
        if (code := generated_code(module, task.dtype, square)) is not None:
            channel.emit(Generated(code))
        check = validate(module.to_numpy(result), a, b, task.dtype)
        channel.emit(_validated("first", check))
        if not check.ok:
            channel.emit(Done(_threading_layer(), blas_info()))
            return 0
        quickening = quicken(module.kernel, args)
        warm_s, _ = time_calls(module.kernel, args, 1)
        loops, warmups = calibrate(module.kernel, args, warm_s, task.min_sample_s)
        channel.emit(Calibrated(loops))
        for value in quickening + warmups:
            channel.emit(Warmup(value))
        _reference(task, channel, "before")
        # The timed window (the samples): the parent (app or CLI) stays quiet in between.
        channel.emit(TimingStarted())
        time.sleep(SETTLE_S)  # the observer's last repaint ends before the first sample
        for index in range(task.repeats):
            threads = thread_schedstat()
            wall, cpu = time.perf_counter(), own_cpu_s()
            value, result = time_calls(module.kernel, args, loops)
            wall, cpu = time.perf_counter() - wall, own_cpu_s() - cpu
            got = straggler_cores(threads, thread_schedstat(), wall)
            channel.emit(Sample(index, value, cpu / wall, got))
        channel.emit(TimingEnded())
        _reference(task, channel, "after")
        check = validate(module.to_numpy(result), a, b, task.dtype)
        channel.emit(_validated("last", check))
        resident = time_resident(module, task, a, b) if task.count and code is not None else None
        if resident is not None:
            channel.emit(Resident(resident))
        if task.count:
            from overhead_tui.worker.counting.phase import count_phase, wants_reference

            channel.emit(counted := count_phase(module, task))
            if wants_reference(counted, task):  # its own worker's speed, declared or not
                channel.emit(Reference(tuple(reference_samples()), "after"))
    except MemoryError as exc:
        return _error(channel, "memory", exc)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt from the kernel too
        return _error(channel, "exception", exc)
    # all its threads and the processes it waited for (a C rung's compiler)
    channel.emit(Done(_threading_layer(), blas_info(), own_cpu_s(children=True)))
    return 0


def _reference(task: WorkerTask, channel: _Channel, phase: Literal["before", "after"]) -> None:
    """Time the dispatch probe's reference loop here, back to back with the samples, so the
    model can scale the cached probe costs to this worker's speed (``attribution``)."""
    if not task.reference_dispatch:
        return
    channel.emit(Reference(tuple(reference_samples()), phase))


def _validated(phase: Literal["first", "last"], check: Validation) -> Validated:
    """The ``validated`` message of a ``validate.Validation`` (an infinite error: None)."""
    error = check.max_abs_error if check.max_abs_error != float("inf") else None
    return Validated(phase, check.ok, error, check.tolerance, check.reason)


def _prepare(task: WorkerTask, channel: _Channel) -> tuple[ModuleType, tuple[object, ...]] | int:
    """Import a scenario and build its arguments at ``task.n``; an exit code on failure."""
    from overhead_tui.worker.inputs import make_inputs

    channel.emit(Started(os.getpid(), task.name, task.n, task.dtype))
    a, b = make_inputs(task.n, task.dtype, task.seed)
    try:
        module = import_scenario(task.path, task.name)
        args = module.setup(a, b)
    except ModuleNotFoundError as exc:
        return _missing_module(channel, task, exc)
    except Exception as exc:
        return _error(channel, "setup", exc)
    return module, args if isinstance(args, tuple) else (args,)


def profile_loop(kernel: Callable[..., object], args: tuple[object, ...], duration_s: float) -> int:
    """Call the kernel until ``duration_s`` has passed; the frame profilers filter on.

    py-spy stacks are kept only when they pass through this function, so imports, set-up and
    JIT compilation never count as the kernel's time.
    """
    calls = 0
    end = time.perf_counter() + duration_s
    while time.perf_counter() < end:
        kernel(*args)
        calls += 1
    return calls


def _perf_control(path: str | None, command: str) -> None:
    """Tell a ``perf record --control fifo:...`` parent to enable or disable its events."""
    if not path:
        return
    ctl, ack = path.split(",")
    with open(ctl, "w") as fh:
        fh.write(command + "\n")
    with open(ack) as fh:
        fh.readline()


def run_profile(task: WorkerTask, channel: _Channel) -> int:
    """``mode: profile``: set up, call once (compile), then repeat the kernel for a while."""
    prepared = _prepare(task, channel)
    if isinstance(prepared, int):
        return prepared
    module, args = prepared
    try:
        module.kernel(*args)  # JIT compile and first call: outside the profiled window
        _perf_control(task.perf_control, "enable")
        started = time.perf_counter()
        calls = profile_loop(module.kernel, args, task.duration_s)
        elapsed = time.perf_counter() - started
        _perf_control(task.perf_control, "disable")
    except BaseException as exc:
        return _error(channel, "exception", exc)
    channel.emit(Profiled(calls, elapsed, elapsed / max(calls, 1)))
    return 0


def run_callgrind(task: WorkerTask, channel: _Channel) -> int:
    """``mode: callgrind``: warm up, then one kernel call through ``itertools.starmap``.

    callgrind zeroes its counters on entry to ``starmap_next`` and dumps them on exit, so
    exactly that one call is counted.
    """
    import itertools

    prepared = _prepare(task, channel)
    if isinstance(prepared, int):
        return prepared
    module, args = prepared
    import gc

    try:
        module.kernel(*args)
        module.kernel(*args)
        gc.collect()
        gc.disable()  # a collection inside the counted call would be counted as the kernel's
        for _ in itertools.starmap(module.kernel, [args]):
            pass
        gc.enable()
    except BaseException as exc:
        return _error(channel, "exception", exc)
    channel.emit(Done())
    return 0


def run_probe(task: WorkerTask, channel: _Channel) -> int:
    """Measure one probe module and emit a ``probe`` event (or ``error``)."""
    import statistics

    from overhead_tui.kit.probing import SETTLED, ProbeContext, ProbeMeasurement
    from overhead_tui.worker.counting.opcodes import count_events

    channel.emit(Started(os.getpid(), task.name))
    try:
        module = import_scenario(task.path, f"probe_{task.name}", probe=True)
        reference = reference_samples() if task.reference_dispatch else []
        measured = module.measure(
            ProbeContext(task.repeats, task.min_sample_s, counter=count_events, settle=SETTLED)
        )
        reference += reference_samples() if task.reference_dispatch else []
    except ModuleNotFoundError as exc:
        return _missing_module(channel, task, exc)
    except Exception as exc:
        return _error(channel, "exception", exc)
    if not isinstance(measured, ProbeMeasurement):
        measured = ProbeMeasurement.from_dict(measured)
    samples = [float(x) for x in measured.samples]
    details = dict(measured.details)
    if reference:  # the reference loop right before and after: the speed of the moment,
        # unless the probe timed it among its own loops (loop_mix: in the same rounds)
        details.setdefault("reference_dispatch_ns", statistics.median(reference))
    estimate = measured.estimate
    value = float(estimate if estimate is not None else statistics.median(samples))
    if len(samples) >= 2:
        q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    else:
        q1 = q3 = value
    spread = (q3 - q1) / abs(value) if value else None
    channel.emit(Probe(value, spread, tuple(samples), details))
    return 0


BUILD_N = 8
"""The side of the inputs a build worker hands a rung's ``setup`` (a build depends on the
dtype, never on the size)."""


def run_build(task: WorkerTask, channel: _Channel) -> int:
    """Build what a scenario's ``setup`` (``build``) or a probe's ``prepare()``
    (``build_probe``) compiles, into the build cache, and time nothing: the run's timed
    workers then load it.  A build that fails is reported by the timed worker that needs it,
    with the fix; here it is only an ``error`` message."""
    from overhead_tui.worker.inputs import make_inputs

    channel.emit(Started(os.getpid(), task.name))
    try:
        if task.mode == "build_probe":
            import_scenario(task.path, f"probe_{task.name}", probe=True).prepare()
        else:
            module = import_scenario(task.path, task.name)
            module.setup(*make_inputs(BUILD_N, task.dtype, task.seed))
            from overhead_tui.worker.compiled_rung import rung_build

            if (built := rung_build(module, task.name)) is not None:
                channel.emit(Build(built))  # built now, or found in the cache
    except ModuleNotFoundError as exc:
        return _missing_module(channel, task, exc)
    except Exception as exc:
        return _setup_error(channel, exc)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m overhead_tui.worker.main TASK_JSON``."""
    argv = sys.argv[1:] if argv is None else argv
    faulthandler.enable()  # a segfault prints the Python stack to stderr (the worker's log)
    cap_file_sizes()
    channel = _Channel()
    try:
        task = WorkerTask.from_json(argv[0])
    except ProtocolError as exc:  # a parent of another version, or a hand-written task
        channel.emit(Error(cause="task", message=str(exc)))
        return 2
    die_with_parent(task.parent_pid)
    started = time.perf_counter()
    modes = {"probe": run_probe, "profile": run_profile, "callgrind": run_callgrind,
             "build": run_build, "build_probe": run_build}  # fmt: skip
    code = modes.get(task.mode, run)(task, channel)
    took = time.perf_counter() - started
    if code == 0 and channel.error_cause is None:
        print(f"worker finished ok in {took:.3f} s", file=sys.stderr)
    else:
        why = f"error ({channel.error_cause})" if channel.error_cause else f"exit code {code}"
        print(f"worker ended with {why} after {took:.3f} s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
