"""The worker protocol, the one home of its vocabulary: the task a worker starts with and every
message it sends back, typed records with the one JSON codec (``summary.codec``, strict).
Standard library only (the codec and the records come from ``summary``): any ``--python``.

The parent builds a :class:`WorkerTask` with :func:`worker_task` and passes
``task.to_json()`` as the worker's argument; the worker reads it back with
:meth:`WorkerTask.from_json`.  The worker sends one JSON object per line, ``{"kind": KIND,
FIELD: value, ...}`` (:func:`encode`); the parent reads each line with :func:`decode` into
the record of that kind (:data:`MESSAGES`), or a :class:`ProtocolError` saying what is wrong.

Messages (kind: record), in the order a ladder worker (``mode: run``) sends them:

    started        :class:`Started`        {pid, name, n, dtype} (a probe's: {pid, name})
    environment    :class:`Environment`    {python, numpy_version, blas, numba_version,
                                            numba_threads}: the defaults, before set-up
    build          :class:`Build`          {info}: a compiled rung's build (``BuildInfo``)
    compiled       :class:`Compiled`       {first_call_s}: JIT compile + one run (s)
    generated      :class:`Generated`      {code}: a compiled rung's hot loop (``GeneratedCode``)
    validated      :class:`Validated`      {phase first|last, ok, max_abs_error, tolerance,
                                            reason}
    calibrated     :class:`Calibrated`     {loops}: kernel calls per sample
    warmup         :class:`Warmup`         {value_s}: seconds per call
    reference      :class:`Reference`      {dispatch_ns [ns], phase before|after}: the dispatch
                                            probe's loop beside the samples (or after counted)
    timing_started :class:`TimingStarted`  {}: the samples begin (the parent keeps quiet)
    sample         :class:`Sample`         {index, value_s, cores, thread_cores}: s per call
    timing_ended   :class:`TimingEnded`    {}: the timed window closes
    resident       :class:`Resident`       {timing (``ResidentTiming``)}: a compiled rung's
                                            kernel on A and B in L1 and on huge pages
    counted        :class:`Counted`        {sizes, per_fma (``EventsPerFma``), bytecode,
                                            bytecode_n, method}
    done           :class:`Done`           {numba_threading_layer, blas, cpu_s [s]}
    error          :class:`Error`          {kind, message, traceback, module}; kind: missing_
                                            dependency | unavailable | import | setup |
                                            exception | memory (the runner: interpreter)

``mode: profile`` sends started, then :class:`Profiled` {calls, seconds, per_call_s} (or
error); ``mode: callgrind`` started, then done (or error); ``mode: probe`` started, then
:class:`Probe` {value, spread, samples, details} (or error).

A field marked ``OMIT`` (``summary.codec``) is left out of the JSON when it is None (the lines
keep the keys they always had: a probe's ``started`` has no n, only the last ``done`` has
``cpu_s``); every other field is always written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Protocol, TypeVar, get_args

from overhead_tui.summary.codec import OMIT, DecodeError, from_json, to_json
from overhead_tui.summary.measured import (
    Blas,
    BlasLibrary,
    BuildInfo,
    BytecodeLine,
    EventsPerFma,
    GeneratedCode,
    ResidentTiming,
)
from overhead_tui.summary.probes import ProbeDetail

R = TypeVar("R")


class ProtocolError(ValueError):
    """A line or task that is not a valid protocol record (the message says which part)."""


def _checked(cls: type[R], data: object, where: str) -> R:
    """Record ``cls`` from a parsed JSON object, every field's type checked (``where``: the
    record's name in the error).

    Raises:
        ProtocolError: not an object, a missing field, a wrong type.
    """
    try:
        return from_json(cls, data, strict=True, where=where)
    except DecodeError as exc:
        raise ProtocolError(str(exc)) from None


# --- the task ---------------------------------------------------------------------------

WorkerMode = Literal["run", "probe", "profile", "callgrind", "build", "build_probe"]
"""What a worker does: time a scenario, measure a probe, run a scenario under a profiler,
make one call under callgrind, or build what a scenario or a probe compiles (nothing timed)."""
MODES: tuple[WorkerMode, ...] = get_args(WorkerMode)

MessageKind = Literal[
    "started",
    "environment",
    "build",
    "compiled",
    "generated",
    "resident",
    "validated",
    "calibrated",
    "warmup",
    "reference",
    "timing_started",
    "sample",
    "timing_ended",
    "counted",
    "done",
    "error",
    "profiled",
    "probe",
]
"""The ``"kind"`` of every line a worker sends (one :class:`Message` subclass each)."""


ErrorCause = Literal[
    "missing_dependency",
    "unavailable",
    "import",
    "setup",
    "exception",
    "memory",
    "interpreter",
    "task",
]
"""What failed in a worker (:class:`Error`; ``interpreter`` is the runner's own)."""


@dataclass(frozen=True)
class WorkerTask:
    """What one worker does: the argument of ``python -m overhead_tui.worker``."""

    mode: WorkerMode
    name: str
    """The scenario's or probe's name."""
    path: str
    """Its file."""
    requires: tuple[str, ...] = ()
    """Modules it declares; importing one of them fails as ``missing_dependency``."""
    n: int = 0
    """Matrix order (B and C have n columns)."""
    dtype: str = "float64"
    seed: int = 0
    """Seed of the random inputs."""
    m: int | None = None
    """Rows of A and C (None: n), for a rectangular product A (m×k)·B (k×n)."""
    k: int | None = None
    """Columns of A, rows of B (None: n)."""
    repeats: int = 0
    """Timed samples (a probe: its repeats)."""
    min_sample_s: float = 0.0
    """Shortest sample (s): calibration repeats the kernel until a sample lasts this long."""
    count: bool = True
    """Count the kernel's events after the samples (``counting.phase``)."""
    max_size: int = 0
    """The scenario's largest n: the counting sizes stay below it."""
    reference_dispatch: bool = False
    """Time the dispatch probe's loop before and after the samples (``reference``)."""
    model: bool = False
    """The probes run: time the sites of C work, maybe ``reference`` (``phase.wants_reference``)."""
    duration_s: float = 0.0
    """``mode: profile``: seconds to keep calling the kernel."""
    perf_control: str | None = None
    """``mode: profile`` under ``perf record --control``: ``CTL_FIFO,ACK_FIFO``."""
    parent_pid: int | None = None
    """The process that started the worker: it dies with it (None: not watched)."""

    def to_json(self) -> str:
        """The task as one JSON object (every field)."""
        return json.dumps(to_json(self))

    @classmethod
    def from_json(cls, text: str) -> WorkerTask:
        """Read a task back.

        Raises:
            ProtocolError: not JSON, not an object, an unknown or missing field, a wrong type.
        """
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as exc:
            raise ProtocolError(f"the worker task is not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ProtocolError("the worker task is not a JSON object")
        if unknown := sorted(set(data) - {f.name for f in fields(cls)}):
            raise ProtocolError(f"task: unknown field(s) {', '.join(unknown)}")
        return _checked(cls, data, "task")


class PluginFile(Protocol):
    """A scenario or probe file as discovery declares it (``plugins``)."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> os.PathLike[str]: ...
    @property
    def requires(self) -> tuple[str, ...]: ...


def worker_task(mode: WorkerMode, plugin: PluginFile, **settings: Any) -> WorkerTask:
    """The task of a worker that runs ``plugin`` in ``mode`` with ``settings`` (the other
    :class:`WorkerTask` fields).  A run's or probe's worker dies with this process; a profiled
    worker's parent is the profiler, so it is not watched (``parent_pid`` None)."""
    watched = mode in ("run", "probe", "build", "build_probe")
    return WorkerTask(
        mode=mode,
        name=plugin.name,
        path=os.fspath(plugin.path),
        requires=tuple(plugin.requires),
        parent_pid=os.getpid() if watched else None,
        **settings,
    )


# --- the messages -----------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """One line of the worker's channel; its class's ``kind`` (``class Sample(Message,
    kind="sample")``) is the line's ``"kind"`` value."""

    kind: ClassVar[MessageKind]

    def __init_subclass__(cls, kind: MessageKind | None = None, **options: object) -> None:
        super().__init_subclass__(**options)
        if kind is not None:
            cls.kind = kind


@dataclass(frozen=True)
class Started(Message, kind="started"):
    pid: int = 0
    name: str = ""
    n: int | None = field(default=None, metadata=OMIT)
    dtype: str | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True)
class PythonReport:
    """The worker's interpreter."""

    implementation: str = ""
    version: str = ""
    executable: str = ""


@dataclass(frozen=True)
class BlasReport(Blas):
    """numpy's BLAS (the :class:`Blas` fields) and every BLAS loaded (``libraries``, numpy's
    first; None from a worker that did not list them)."""

    libraries: tuple[BlasLibrary, ...] | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True)
class Environment(Message, kind="environment"):
    python: PythonReport | None = None
    numpy_version: str | None = None
    blas: BlasReport | None = None
    """numpy's defaults, before the scenario's set-up (which may limit its threads)."""
    numba_version: str | None = None
    """None: the scenario did not import numba."""
    numba_threads: int | None = None


@dataclass(frozen=True)
class Build(Message, kind="build"):
    info: BuildInfo = field(default_factory=BuildInfo)
    """How the rung was built (``kit.builds``, recorded by the kit's build helpers): the
    summary's ``build``."""


@dataclass(frozen=True)
class Compiled(Message, kind="compiled"):
    first_call_s: float = 0.0


@dataclass(frozen=True)
class Generated(Message, kind="generated"):
    code: GeneratedCode = field(default_factory=GeneratedCode)
    """The FP arithmetic of the rung's hot loop, from its own compiled code."""


@dataclass(frozen=True)
class Resident(Message, kind="resident"):
    timing: ResidentTiming = field(default_factory=ResidentTiming)
    """The rung's kernel timed at an order whose matrices fit the L1 data cache."""


@dataclass(frozen=True)
class Validated(Message, kind="validated"):
    phase: Literal["first", "last"] = "first"
    """``first`` (the first call's result) or ``last`` (the last sample's)."""
    ok: bool = False
    max_abs_error: float | None = None
    """None when infinite."""
    tolerance: float | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Calibrated(Message, kind="calibrated"):
    loops: int = 1


@dataclass(frozen=True)
class Warmup(Message, kind="warmup"):
    value_s: float = 0.0


@dataclass(frozen=True)
class Reference(Message, kind="reference"):
    dispatch_ns: tuple[float, ...] = ()
    phase: Literal["before", "after"] = "before"
    """``before`` or ``after`` the samples."""


@dataclass(frozen=True)
class TimingStarted(Message, kind="timing_started"):
    """The samples begin (the parent keeps quiet)."""


@dataclass(frozen=True)
class Sample(Message, kind="sample"):
    index: int = 0
    value_s: float = 0.0
    cores: float | None = None
    """The worker's CPU seconds (all threads) over the sample's wall seconds (older: None)."""
    thread_cores: float | None = field(default=None, metadata=OMIT)
    """The cores its slowest thread implies (``worker.cpu_time.straggler_cores``)."""


@dataclass(frozen=True)
class TimingEnded(Message, kind="timing_ended"):
    """The timed window closes."""


@dataclass(frozen=True)
class Counted(Message, kind="counted"):
    sizes: tuple[int, ...] = ()
    """The small n counted at."""
    per_fma: EventsPerFma | None = None
    """The summary's ``events_per_fma`` (extrapolated to the timed n); None under four sizes
    (older lines: an empty object)."""
    bytecode: tuple[BytecodeLine, ...] = ()
    bytecode_n: int | None = None
    """The size ``bytecode`` was counted at."""
    method: str = ""


@dataclass(frozen=True)
class Done(Message, kind="done"):
    numba_threading_layer: str | None = None
    blas: BlasReport | None = None
    """The BLAS after the samples (set-up may change its threads)."""
    cpu_s: float | None = field(default=None, metadata=OMIT)
    """The worker's user + system CPU time (s); absent when it stopped at an invalid first
    result."""


@dataclass(frozen=True)
class Error(Message, kind="error"):
    cause: ErrorCause = "exception"
    """What failed (see the module docstring)."""
    message: str = "unknown error"
    traceback: str | None = field(default=None, metadata=OMIT)
    module: str | None = None
    """The module an ImportError names."""


@dataclass(frozen=True)
class Profiled(Message, kind="profiled"):
    calls: int = 0
    seconds: float = 0.0
    per_call_s: float = 0.0


@dataclass(frozen=True)
class Probe(Message, kind="probe"):
    value: float | None = None
    spread: float | None = None
    """Relative IQR of the samples within this process."""
    samples: tuple[float, ...] = ()
    details: dict[str, ProbeDetail] = field(default_factory=dict)
    """What the probe file reported besides its samples (``ProbeResult.details``)."""


MESSAGES: dict[str, type[Message]] = {
    cls.kind: cls
    for cls in (
        Started,
        Environment,
        Build,
        Compiled,
        Generated,
        Validated,
        Calibrated,
        Warmup,
        Reference,
        TimingStarted,
        Sample,
        TimingEnded,
        Resident,
        Counted,
        Done,
        Error,
        Profiled,
        Probe,
    )
}
"""Every message record by its kind."""


# --- the lines --------------------------------------------------------------------------


def to_dict(message: Message) -> dict[str, Any]:
    """A message as its JSON object: ``{"kind": KIND, FIELD: value, ...}``."""
    return {"kind": message.kind, **to_json(message)}


def encode(message: Message) -> str:
    """One line of the channel (without its newline)."""
    return json.dumps(to_dict(message))


def decode(line: str | bytes) -> Message:
    """The message one line of the channel carries.

    Raises:
        ProtocolError: not JSON, not an object with a ``"kind"``, an unknown kind, or a
            field of the wrong type.
    """
    try:
        data = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from None
    return from_dict(data)


def from_dict(data: object) -> Message:
    """The message a parsed JSON object is (see :func:`decode`); missing fields take their
    defaults, unknown ones are ignored (an older or newer worker)."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise ProtocolError("not a message: a JSON object with a 'kind' is expected")
    cls = MESSAGES.get(data["kind"])
    if cls is None:
        raise ProtocolError(f"unknown message kind {data['kind']!r}")
    return _checked(cls, {k: v for k, v in data.items() if k != "kind"}, cls.kind)
