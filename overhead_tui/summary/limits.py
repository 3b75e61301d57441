"""The machine's model and measured limits as stored in ``summary.machine``
(``machine.limits.machine_limits``): the compute peaks per dtype and the rest of the limits.

GFLOP/s for peaks, GB/s for bandwidth, GHz for clocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from overhead_tui.summary.codec import OMIT


@dataclass(frozen=True)
class PeakEntry:
    """The compute peak of one dtype: theoretical (the CPU model) and measured (GFLOP/s).

    The theoretical fields are left out (None) for an unknown CPU, the ratios without both
    figures, ``warning`` unless the measured peak is above the theoretical one.
    """

    measured: float | None = None
    """The best of the probes and the run's dense kernels (all cores)."""
    measured_by: str | None = None
    """The probe or rung that measured it."""
    one_core: float | None = None
    """The ``simd_fma`` probe on one core."""
    theoretical: float | None = field(default=None, metadata=OMIT)
    """At the measured clock (else the nominal one), min(physical, effective) cores."""
    formula: str | None = field(default=None, metadata=OMIT)
    theoretical_nominal: float | None = field(default=None, metadata=OMIT)
    formula_nominal: str | None = field(default=None, metadata=OMIT)
    flop_per_cycle_per_core: float | None = field(default=None, metadata=OMIT)
    one_core_theoretical: float | None = field(default=None, metadata=OMIT)
    one_core_ratio: float | None = field(default=None, metadata=OMIT)
    ratio: float | None = field(default=None, metadata=OMIT)
    """measured / theoretical."""
    warning: str | None = field(default=None, metadata=OMIT)


@dataclass(frozen=True)
class FactCheck:
    """One machine fact measured by two independent methods, and whether they agree.

    ``first`` is the figure the tool uses (unless ``used`` says otherwise), ``second`` the
    independent check; ``agree`` is None when the second could not be had (then ``note`` says
    why).  Units are ``unit`` for both.
    """

    fact: str
    """``clock``, ``fma_flop_per_cycle`` (float64, one core), ``parallel_cores``."""
    unit: str
    first_method: str
    first: float | None
    second_method: str
    second: float | None
    agree: bool | None = None
    used: float | None = None
    """The figure the tool uses for this fact."""
    note: str = ""
    """The verdict in words (what was used and why, or what disagrees)."""


@dataclass(frozen=True)
class PrecisionPeak:
    """One lower-precision instruction family measured by the ``precision_peak`` probe beside
    what it should do (``machine.precision``).  GFLOP/s, or GOP/s for int8 (``unit``)."""

    family: str
    """``avx512_bf16``, ``avx512_fp16``, ``avx512_vnni``, ``amx_bf16`` or ``amx_int8``."""
    unit: str
    """``FLOP`` or ``OP`` (an int8 multiply or add)."""
    one_core: float | None = None
    """The family's rate on one core (GFLOP/s or GOP/s)."""
    all_cores: float | None = None
    """Its rate on every core the run may use (GFLOP/s or GOP/s)."""
    per_cycle: float | None = None
    """Operations per cycle of one core, at the clock under FMA load where measured."""
    expected_per_cycle: float | None = None
    expected_source: str = ""
    """Where ``expected_per_cycle`` comes from (a manual, or the FMA-unit rule)."""
    ratio: float | None = None
    """``per_cycle`` / ``expected_per_cycle``."""


@dataclass(frozen=True)
class MachineLimits:
    """What ``machine.limits.machine_limits`` gives: the CPU model's fields (None for an
    unknown CPU), the clocks, the peaks, the bandwidth and the warnings about them."""

    effective_cores: float | None = None
    cgroup_cpu_quota: float | None = None
    clock_ghz: dict[str, float | None] = field(default_factory=dict)
    """{nominal, max, measured} (GHz)."""
    bandwidth_gbs: dict[str, float | None] = field(default_factory=dict)
    """{one_core, all_cores}: STREAM triad (GB/s)."""
    packing_gbs: float | None = None
    """One thread packing a B beyond the caches into BLIS-style micro-panels, bytes read and
    written (GB/s; ``stream_triad`` detail ``pack_one_thread_gbs``)."""
    peak_gflops: dict[str, PeakEntry] = field(default_factory=dict)
    """{float64|float32: peak}."""
    limit_warnings: list[str] = field(default_factory=list)
    fact_checks: list[FactCheck] = field(default_factory=list)
    """Each machine fact from two methods with its verdict (``machine.facts``)."""
    precision_peaks: list[PrecisionPeak] = field(default_factory=list)
    """The lower precisions' measured peaks beside what they should do (``machine.precision``)."""
    # -- from the CPU model (left out of the JSON for an unknown CPU) --
    physical_cores: int | None = field(default=None, metadata=OMIT)
    microarchitecture: str | None = field(default=None, metadata=OMIT)
    table_source: str | None = field(default=None, metadata=OMIT)
    isa: list[str] = field(default_factory=list, metadata=OMIT)
    simd_width_bits: int | None = field(default=None, metadata=OMIT)
    fma_units: int | None = field(default=None, metadata=OMIT)
    fma_width_bits: int | None = field(default=None, metadata=OMIT)
