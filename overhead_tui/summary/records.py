"""The run summary: the one contract between the engine, the app and the exporters.

A run produces a :class:`RunSummary`; every screen and every export is derived from it.  It is
saved as versioned JSON (``summary.json``) and validated against ``summary.schema.json`` (shipped
in this package) when read back.

Format history (``schema_version``):
    1 -- first version: machine, settings and one record per scenario with its samples,
         statistics, validation and status.
    2 -- adds ``probes`` {name: {value, unit, spread, layer, details}}, per scenario
         ``events_per_fma`` (exact counts), ``bytecode`` (executed instructions),
         ``breakdown`` (model) and ``profile`` (profilers, optional), and the ladder's
         ``waterfall``.  Version 1 files load with these empty.
    3 -- the machine's model and limits move from ``machine.limits`` to ``machine`` itself
         (physical_cores, effective_cores, cgroup_cpu_quota, isa, simd_width_bits, fma_units,
         clock_ghz, peak_gflops, bandwidth_gbs, ...); optional top-level ``sweep``.  Version 2
         files are upgraded on load (their ``limits`` keys are lifted).
    4 -- status ``impossible`` (faster than the hardware's theoretical peak: never a speed);
         ``machine.environment`` (the variables steering BLAS, OpenMP, numba and MKL) and
         ``machine.blas.source``; per scenario ``blas`` (every BLAS library in its worker).
         Versions 1-3 load unchanged: the new fields start empty.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from overhead_tui.summary import measured
from overhead_tui.summary.breakdown import Breakdown, WaterfallStep
from overhead_tui.summary.codec import OMIT, from_json, record_json, write_atomic
from overhead_tui.summary.limits import FactCheck, MachineLimits, PeakEntry, PrecisionPeak
from overhead_tui.summary.probes import ProbeResult
from overhead_tui.summary.profile import ProfileRecord
from overhead_tui.summary.shapes import ShapesRecord
from overhead_tui.summary.sweep import SweepRecord
from overhead_tui.summary.validation import (
    NonFiniteNumber,
    SummaryError,
    check_consistent,
    refuse_non_finite,
    validate_summary,
)
from overhead_tui.summary.vocabulary import Status

SCHEMA_VERSION = 4
"""Current ``schema_version`` written by this tool."""
REQUIRED = {"required": True}
"""Field metadata: every file of every version has this key (the generated schema requires it:
``scripts/gen_schema.py``)."""


def created_now() -> str:
    """The ``created`` stamp of every summary the tool writes: now, local time with its UTC
    offset, to the second (``2026-12-02T04:36:10+00:00``)."""
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def tool_stamp() -> dict[str, str]:
    """The ``tool`` of every summary: this tool's name and version."""
    import overhead_tui

    return {"name": "overhead-tui", "version": overhead_tui.__version__}


SUMMARY_FILE = "summary.json"
"""The summary's file in a run directory (``engine.run_dir`` owns the rest of its layout)."""
MAX_SUMMARY_BYTES = 200_000_000
"""Largest summary file :meth:`RunSummary.load` reads (bytes); a run's is usually under 1 MB."""


@dataclass(frozen=True)
class BlasInfo(measured.Blas):
    """The BLAS library numpy uses in the workers (a worker's :class:`~overhead_tui.summary.
    measured.Blas` report) and which worker reported it."""

    source: str | None = None
    """Which worker reported it: the dense kernel's (after its set-up) or, until that ran,
    numpy's default in the first worker (before set-up)."""


@dataclass
class PythonInfo:
    """The interpreter that ran the workers."""

    implementation: str = ""
    version: str = ""
    executable: str = ""


@dataclass
class MachineInfo:
    """Facts about the machine and the worker interpreter, hoisted once per run."""

    cpu_model: str = "unknown"
    logical_cpus: int = 0
    effective_cpus: int = 0
    """CPUs this process may run on (affinity mask)."""
    python: PythonInfo = field(default_factory=PythonInfo)
    numpy_version: str | None = None
    numba_version: str | None = None
    numba_threading_layer: str | None = None
    blas: BlasInfo = field(default_factory=BlasInfo)
    platform: str = ""
    environment: dict[str, str] = field(default_factory=dict)
    """Variables that steer BLAS, OpenMP, numba and MKL threads or kernels, as the workers
    inherit them (``OPENBLAS_*``, ``OMP_*``, ``MKL_*``, ``NUMBA_*``, ``GOTO*``, ``BLIS_*``)."""
    # -- the CPU model and the machine's limits (``limits.machine_limits``) -----------------
    physical_cores: int | None = None
    effective_cores: float | None = None
    """min(affinity CPUs, cgroup CPU quota): the cores' worth of time this process may use."""
    cgroup_cpu_quota: float | None = None
    """CPU quota of the process's cgroup in cores (None: no quota)."""
    microarchitecture: str | None = None
    table_source: str | None = None
    """Source of the micro-architecture table row used for the FMA units (``cpu``)."""
    isa: list[str] = field(default_factory=list)
    simd_width_bits: int | None = None
    fma_units: int | None = None
    fma_width_bits: int | None = None
    clock_ghz: dict[str, float | None] = field(default_factory=dict)
    """{nominal, max, measured} (GHz); max from cpufreq where the kernel exposes it."""
    peak_gflops: dict[str, PeakEntry] = field(default_factory=dict)
    """{float64|float32: peak} (GFLOP/s); ratio = measured / theoretical at the measured
    clock."""
    bandwidth_gbs: dict[str, float | None] = field(default_factory=dict)
    """{one_core, all_cores}: STREAM triad (GB/s)."""
    packing_gbs: float | None = field(default=None, metadata=OMIT)
    """One thread packing a B beyond the caches into BLIS-style micro-panels (GB/s, read +
    written); absent from older files."""
    limit_warnings: list[str] = field(default_factory=list)
    """Implausible measured limits (e.g. all-core bandwidth below one core's), as text."""
    fact_checks: list[FactCheck] = field(default_factory=list, metadata=OMIT)
    """Each machine fact from two independent methods, with its verdict."""
    precision_peaks: list[PrecisionPeak] = field(default_factory=list, metadata=OMIT)
    """Lower-precision peaks (AVX-512 BF16/FP16/VNNI, AMX), measured and expected."""

    @property
    def limits(self) -> MachineLimits | None:
        """The limit fields as one record (None when they were never measured)."""
        if not self.peak_gflops and not self.clock_ghz:
            return None
        return MachineLimits(**{name: getattr(self, name) for name in LIMIT_FIELDS})

    def set_limits(self, limits: MachineLimits) -> None:
        """Store a ``limits.machine_limits`` result."""
        for name in LIMIT_FIELDS:
            setattr(self, name, getattr(limits, name))


LIMIT_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(MachineLimits))
"""Fields of :class:`MachineInfo` filled by ``limits.machine_limits``."""


@dataclass
class Settings:
    """What the user asked for."""

    dtype: str = "float64"
    size: int | None = None
    """Matrix order n for every scenario; ``None`` means each scenario's default."""
    repeats: int = 7
    seed: int = 0
    timeout_s: float = 120.0
    min_sample_s: float = 0.05
    python: str | None = None
    """Interpreter given with ``--python``; ``None`` means the current one."""
    scenarios: list[str] = field(default_factory=list)
    """Scenarios chosen by name (``--scenario``)."""
    sets: list[str] = field(default_factory=list)
    """Named sets chosen (``--set``: ``plugins.scenarios.SETS``); with no scenario and no set
    chosen, the default set runs."""
    scenarios_dirs: list[str] = field(default_factory=list)
    probes: bool = True
    """Measure (or load cached) probes and compute model breakdowns."""
    refresh_probes: bool = False
    """Re-measure the probes even when the per-machine cache is current."""
    m: int | None = None
    """Rows of A and C for a rectangular product C (m×n) = A (m×k)·B (k×n) (``None``: n)."""
    k: int | None = None
    """Columns of A, rows of B for a rectangular product (``None``: n)."""


MEASURED_FIELDS = frozenset(
    {
        # what the scenario declared, and the product it ran
        *("name", "title", "rung", "layers", "removes", "n", "m", "k", "dtype", "flops"),
        *("description", "kernel_source", "kernel_lines", "dense_kernel"),
        # what its workers measured and reported
        *("max_abs_error", "tolerance", "first_call_s", "loops", "warmups_s", "samples_s"),
        *("sample_cores", "sample_thread_cores", "reference_dispatch_ns", "worker_processes"),
        *("blas_threads", "numba_threads", "blas", "events_per_fma", "bytecode", "bytecode_n"),
        *("build", "generated_code", "resident"),
        # what the runner saw around them
        *("wall_s", "steal_fraction", "other_cpu_fraction", "observer", "observer_cpu_s"),
        *("observer_fraction", "observer_switches"),
    }
)
"""The fields of a :class:`ScenarioResult` that record what was declared and measured.  Once
the result is sealed (:meth:`ScenarioResult.seal`, when ``engine.results.rung_result`` has
folded its workers' messages) none of them can be assigned again; their sequences are tuples
and their nested records frozen dataclasses, but ``events_per_fma`` (``EventsPerFma``, a
``Counters`` as the worker's mutable ``EventCounts`` is, which nothing edits).  The rest is
the verdict and what is derived from it: the status and its reason, the statistics of the
samples and their warnings (``engine.results``), the ``impossible`` verdict
(``machine.limits.reject_impossible``), × dense, the breakdown, the roofline
(``analysis.derive``) and a profile made later."""


@dataclass
class ScenarioResult:
    """The measured outcome of one scenario (one rung).

    Times are in seconds per kernel call (one C = A·B of order ``n``).  Statistics are ``None``
    unless the status is ``ok``; an ``invalid`` or ``impossible`` scenario keeps its error (and
    its raw samples) but never a speed.  The fields in :data:`MEASURED_FIELDS` are fixed once
    the result is sealed; the others are its verdict and derived figures.
    """

    name: str
    title: str
    rung: int
    layers: list[str]
    removes: list[str]
    n: int
    dtype: str
    flops: int
    """2·m·k·n floating-point operations per call (one multiply and one add per FMA); 2·n³
    for the square product."""
    status: Status = "skipped"
    error: str | None = None
    description: str = ""
    kernel_source: str = ""
    kernel_lines: list[int] = field(default_factory=list, metadata=OMIT)
    """The file line each part of ``kernel_source`` starts at (parts joined by two blank
    lines); empty in older files."""
    dense_kernel: bool = False
    max_abs_error: float | None = None
    tolerance: float | None = None
    """Largest allowed absolute error of an element (see ``worker.validate``)."""
    compile_s: float | None = None
    """JIT compile / first-call cost beyond one ordinary call: first call − median (s, ≥ 0)."""
    first_call_s: float | None = None
    loops: int | None = None
    """Kernel calls per timed sample (calibrated so a sample lasts ≥ ``min_sample_s``)."""
    warmups_s: tuple[float, ...] = field(default=())
    samples_s: tuple[float, ...] = field(default=())
    sample_cores: tuple[float, ...] = field(default=(), metadata=OMIT)
    """Each sample's CPU time over its wall time (the worker's threads together): the cores
    the kernel got while timed (``worker.protocol.Sample.cores``)."""
    sample_thread_cores: tuple[float, ...] = field(default=(), metadata=OMIT)
    """Each sample's busy threads × the smallest share of its runnable time one of them spent
    on a CPU (``worker.cpu_time.straggler_cores``): the cores an evenly split kernel got,
    spinning at barriers not counted as work."""
    min_s: float | None = None
    median_s: float | None = None
    iqr_s: float | None = None
    stdev_s: float | None = None
    cv: float | None = None
    """Coefficient of variation: stdev / mean (a fraction, 0.1 = 10 %)."""
    gflops: float | None = None
    """flops / median_s / 1e9 (GFLOP/s)."""
    vs_dense: float | None = None
    """(median_s / flops) / (dense kernel's median_s / flops): × slower per flop."""
    ns_per_fma: float | None = None
    warnings: list[str] = field(default_factory=list)
    steal_fraction: float | None = None
    """Share of CPU time stolen by the hypervisor while this scenario ran (/proc/stat)."""
    wall_s: float | None = None
    other_cpu_fraction: float | None = None
    """Share of all CPUs used by *other* processes while this scenario's worker ran."""
    observer: str | None = None
    """The process that ran the worker and read its events ("the app", "overhead-tui")."""
    observer_cpu_s: float | None = None
    """CPU time (s) the observer used while this scenario's samples were timed."""
    observer_fraction: float | None = None
    """``observer_cpu_s`` over the timed window's wall time: a fraction of one CPU."""
    observer_switches: int | None = field(default=None, metadata=OMIT)
    """The observing process's context switches inside the timed windows (its wake-ups)."""
    blas_threads: int | None = None
    numba_threads: int | None = None
    blas: tuple[measured.BlasLibrary, ...] = field(default=())
    """Every BLAS library loaded in this rung's worker when it finished (threadpoolctl), numpy's
    first (its ``architecture``: the kernel, e.g. ``Haswell``)."""
    events_per_fma: measured.EventsPerFma | None = None
    """Exact events per multiply-add at ``n`` (``counting``)."""
    bytecode: tuple[measured.BytecodeLine, ...] = field(default=())
    """Executed instructions at a small size."""
    bytecode_n: int | None = None
    """The matrix order at which ``bytecode`` was counted (per_fma is at that n)."""
    arithmetic_intensity: float | None = None
    """Flops per byte of the minimum traffic, 2n / (3·itemsize) (``limits``)."""
    pct_peak: float | None = None
    """GFLOP/s over the measured compute peak of this dtype (a fraction)."""
    roofline_ceiling_gflops: float | None = None
    """min(measured peak, arithmetic intensity × measured bandwidth) (GFLOP/s)."""
    build: measured.BuildInfo | None = None
    """How a compiled rung was built (``cbuild``)."""
    generated_code: measured.GeneratedCode | None = field(default=None, metadata=OMIT)
    """One iteration of a compiled rung's hot loop (C and numba rungs)."""
    resident: measured.ResidentTiming | None = field(default=None, metadata=OMIT)
    """A compiled rung's kernel timed with its data in L1 (the memory part of its model)."""
    profile: ProfileRecord | None = None
    """Profiler results (``profilers.profile``; JSON: ``ProfileRecord.to_json``)."""
    breakdown: Breakdown | None = None
    """Model breakdown (``analysis.attribution``)."""
    reference_dispatch_ns: tuple[float, ...] = field(default=())
    """ns per dispatch of the probes' reference loop, timed in this rung's worker right before
    and after its samples (rungs carrying ``interpreter_dispatch``; empty otherwise)."""
    worker_processes: int | None = field(default=None, metadata=OMIT)
    """How many worker processes took ``samples_s`` (pooled in that order; see
    ``engine.plan.EVAL_LOOP_PROCESSES``); absent: one."""
    m: int | None = None
    """Rows of A and C of a rectangular product C (m×n) = A (m×k)·B (k×n); None: square, n."""
    k: int | None = None
    """Columns of A, rows of B of a rectangular product; None: square, n."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in MEASURED_FIELDS and self.__dict__.get("_sealed"):
            raise dataclasses.FrozenInstanceError(
                f"{self.name}: {name} was measured and is sealed; derive new figures instead"
            )
        super().__setattr__(name, value)

    def seal(self) -> None:
        """Fix the measured fields (:data:`MEASURED_FIELDS`): assigning one raises
        ``dataclasses.FrozenInstanceError`` from now on (a copy stays sealed)."""
        object.__setattr__(self, "_sealed", True)

    @property
    def sealed(self) -> bool:
        """Whether :meth:`seal` was called: the measured fields can no longer change."""
        return bool(self.__dict__.get("_sealed"))

    def clear_speed(self) -> None:
        """Drop every speed figure: an invalid, impossible or failed scenario never carries
        one (its samples are kept)."""
        self.min_s = self.median_s = self.iqr_s = self.stdev_s = self.cv = None
        self.gflops = self.vs_dense = self.ns_per_fma = self.compile_s = None

    @property
    def sample_processes(self) -> int:
        """The worker processes that took ``samples_s`` (``worker_processes``; absent: one)."""
        return self.worker_processes or 1

    @property
    def has_speed(self) -> bool:
        """True when the scenario may be shown as a speed (validated and timed)."""
        return self.status == "ok" and self.median_s is not None


@dataclass
class RunSummary:
    """A whole run: machine, settings and one :class:`ScenarioResult` per scenario, by rung."""

    machine: MachineInfo = field(default_factory=MachineInfo, metadata=REQUIRED)
    settings: Settings = field(default_factory=Settings, metadata=REQUIRED)
    scenarios: list[ScenarioResult] = field(default_factory=list, metadata=REQUIRED)
    created: str = field(default="", metadata=REQUIRED)
    """ISO 8601 time the run started."""
    finished: bool = False
    """False while running or when the run was interrupted."""
    wall_s: float | None = None
    run_dir: str | None = None
    tool: dict[str, str] = field(default_factory=dict, metadata=REQUIRED)
    probes: dict[str, ProbeResult] = field(default_factory=dict)
    """Probe results used for the breakdowns and the limits, by probe name."""
    waterfall: list[WaterfallStep] = field(default_factory=list)
    """Steps between consecutive ok rungs (``analysis.waterfall``)."""
    sweep: SweepRecord | None = None
    """A size sweep (``sweeps.sizes``) when one was run (``summary.sweep``)."""
    shapes: ShapesRecord | None = None
    """A batch sweep of rectangular products (``overhead-tui shapes``) when one was run
    (``summary.shapes``)."""
    schema_version: int = SCHEMA_VERSION

    def scenario(self, name: str) -> ScenarioResult | None:
        """Return the result of the scenario called ``name``, if present."""
        return next((s for s in self.scenarios if s.name == name), None)

    @property
    def dense(self) -> ScenarioResult | None:
        """The dense kernel's result if it ran and is ok."""
        return next((s for s in self.scenarios if s.dense_kernel and s.has_speed), None)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as a JSON-ready dict (schema ``SCHEMA_VERSION``)."""
        return record_json(self)

    def dumps(self) -> str:
        """Serialise as sorted, indented UTF-8 JSON text ending in a newline."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, data: Any) -> RunSummary:
        """Build a summary from parsed JSON after validating it against the schema.

        Raises:
            SummaryError: the data is not a valid summary of a version this tool reads.
        """
        validate_summary(data)
        check_consistent(data)
        machine = dict(data["machine"])
        machine.update(machine.pop("limits", None) or {})  # version 2 kept them in "limits"
        summary = from_json(
            cls,
            {
                "finished": True,  # before "finished" existed, a summary was a finished run
                **data,
                "machine": machine,
                "schema_version": SCHEMA_VERSION,  # older versions: their new keys start empty
            },
        )
        for result in summary.scenarios:  # what a file says was measured stays so
            result.seal()
        return summary

    def save(self, path: Path) -> None:
        """Write the summary atomically (``codec.write_atomic``)."""
        write_atomic(path, self.dumps())

    @classmethod
    def load(cls, path: Path) -> RunSummary:
        """Read a summary file, or ``summary.json`` inside a run directory.

        Raises:
            SummaryError: missing, unreadable, not JSON, or not a valid summary.
        """
        path = Path(path)
        if path.is_dir():
            if not (path / SUMMARY_FILE).exists():
                raise SummaryError(
                    f"{path} is not a run directory (no summary.json in it); fix: give a run "
                    "directory or a summary.json file"
                )
            path = path / SUMMARY_FILE
        try:
            if (size := path.stat().st_size) > MAX_SUMMARY_BYTES:
                raise SummaryError(
                    f"{path} is {size / 1e6:,.0f} MB, above the {MAX_SUMMARY_BYTES / 1e6:.0f} MB "
                    "limit for a summary (a run's is usually under 1 MB); is it a summary.json?"
                )
            data = json.loads(path.read_bytes(), parse_constant=refuse_non_finite)
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise SummaryError(
                f"cannot read {path}: {reason}; fix: give a summary.json file or a run directory"
            ) from None
        except (json.JSONDecodeError, RecursionError) as exc:  # RecursionError: nested too deep
            raise SummaryError(f"{path} is not JSON ({exc}); is it a summary.json?") from None
        except NonFiniteNumber as exc:
            raise SummaryError(
                f"{path} holds {exc}, which is no measurement; "
                "fix: give a summary.json that overhead-tui wrote (a run directory's)"
            ) from None
        try:
            return cls.from_json(data)
        except SummaryError as exc:
            fix = "fix: give a summary.json that overhead-tui wrote (a run directory's)"
            raise SummaryError(f"{path}: {exc}; {fix}") from None
