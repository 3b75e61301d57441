"""The derived records of a run: a rung's model breakdown (``analysis.attribution``), the
model-vs-perf agreement (``analysis.agreement``) and the ladder's waterfall steps
(``analysis.waterfall``).

Times are ns per multiply-add (FMA) unless named otherwise; shares are fractions of the rung's
measured median time; intervals are [low, high] (``analysis.uncertainty``).  Their JSON is
:func:`overhead_tui.summary.codec.to_json` of these records (keys a file of an older version
lacks are left out again).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from overhead_tui.summary.codec import ABSENT, JSON_NAME, OMIT, Interval

FITTED_MARK = " (fit)"
"""Ends the unit of a row priced at a ``loop_mix`` cost, fitted over loops of the rungs'
shape (views explain it in a footnote: ``present.format.FITTED_NOTE``)."""


@dataclass(frozen=True)
class BreakdownRow:
    """One priced event of the model, or the labelled rest of the measured time."""

    layer: str
    events_per_fma: float | None = None
    """Events per FMA (None: the labelled rest, which is no count)."""
    unit_cost: float | None = None
    """Cost of one event, in ``unit``."""
    unit: str = ""
    """e.g. ``ns/dispatch``, ``ns/flop at peak`` or ``rest of the measured time``."""
    ns_per_fma: float | None = None
    """events × unit cost (ns per FMA)."""
    share: float | None = field(default=None, metadata=OMIT)
    """ns_per_fma over the measured time (a fraction)."""
    unit_interval: Interval | None = field(default=None, metadata=OMIT)
    ns_interval: Interval | None = field(default=None, metadata=OMIT)
    share_interval: Interval | None = field(default=None, metadata=OMIT)
    below_resolution: bool = field(default=False, metadata=OMIT)
    """The unit cost's probe measured ≤ 0: counted as 0."""

    @property
    def ns_bounds(self) -> Interval:
        """``ns_interval``, or the point value twice."""
        return self.ns_interval or (self.ns_per_fma or 0.0, self.ns_per_fma or 0.0)


@dataclass(frozen=True)
class Scale:
    """The interpreted unit costs' scale: the rung's own reference dispatch over the probe's."""

    factor: float
    interval: Interval
    dispatch_ns_now: float | None
    """ns per dispatch in the rung's worker (the scaled dispatch cost)."""
    samples: int
    """Reference timings taken in the rung's worker."""


@dataclass(frozen=True)
class AgreementEntry:
    """One layer's (or merged pair's) share by the model and by perf, with a verdict."""

    model: float | None
    model_interval: Interval | None
    perf: float | None
    perf_interval: Interval | None
    verdict: str
    """``agree`` (the intervals overlap), ``disagree`` or ``not separable``."""


@dataclass(frozen=True)
class Agreement:
    """The model's breakdown against perf's samples, layer by layer."""

    source: str = "perf"
    samples: int | None = None
    """perf's samples on the rung (None: not reported)."""
    layers: dict[str, AgreementEntry] = field(default_factory=dict)
    """{layer or ``host+layer``: entry}."""


@dataclass(frozen=True)
class CompiledQuantities:
    """What the compiled-rung model (``analysis.compiled``) measured of one rung, per
    multiply-add unless named otherwise; each with its method in :attr:`methods`."""

    instructions_per_fma: float | None = None
    """Instructions of its hot loop per multiply-add (read from its own code)."""
    fp_instructions_per_fma: float | None = None
    """Of those, the floating-point arithmetic ones."""
    l1_bytes_per_fma: float | None = None
    """Bytes its loads and stores move to and from L1 (memory operands × operand width)."""
    vector_width_bits: int | None = None
    """The widest FP register of its hot loop (None: scalar code)."""
    issue_ns: float | None = None
    """Its instructions at the core's measured issue rate."""
    fp_ns: float | None = None
    """Its FP instructions at the measured FP issue rate."""
    chain_ns: float | None = None
    """Its longest loop-carried chain at the measured latencies."""
    l1_ns: float | None = None
    """Its loads, its stores, or both together, at the rates one core sustains them in L1 at
    their widths (whichever takes longest; None without the probe's L1 rates)."""
    shuffle_ns: float | None = None
    """Its FP instructions and register shuffles together, adding as far as they share ports
    (None without shuffles or the probe's shuffle rates)."""
    in_core_bound: str = ""
    """Which of ``issue``, ``fp``, ``chain``, ``l1``, ``shuffle`` (or ``dense kernel``) is
    the largest."""
    resident_n: int | None = None
    """The order its resident timing was taken at (its own n)."""
    resident_ns: float | None = None
    """ns per multiply-add with A and B resident in L1."""
    memory_ns: float | None = None
    """Its time beyond the resident time (≥ 0): from its time with A and B aligned on fresh
    2 MiB pages where that was measured (:attr:`placement_ns`), else from its own time."""
    loop_entries_per_fma: float | None = None
    """Entries of its hot loop per multiply-add, counted at :attr:`loop_nest_n` by gcc's arc
    profiling (``worker.loop_nest``); None where it was not counted."""
    loop_nest_n: int | None = None
    placement_ns: float | None = None
    """Its time beyond the same kernel's on copies of A and B on fresh 2 MiB pages, 64-byte
    aligned (≥ 0): what where its arrays landed cost (cache-line splits, TLB misses); None
    where transparent huge pages were not granted."""
    memory_note: str = ""
    """Why its memory hierarchy's row is a lower bound or absent on this CPU (its resident
    copies are not L1-resident here: ``analysis.memory``); "" where it is measured."""
    callgrind_instructions_per_fma: float | None = None
    """The second method: callgrind's count of one whole kernel call (loop overheads
    included) over its multiply-adds, at :attr:`callgrind_n` (when callgrind profiled it)."""
    callgrind_n: int | None = None
    threads: int | None = None
    """Threads it ran on (BLAS or numba pool; 1 for single-threaded code)."""
    methods: dict[str, str] = field(default_factory=dict)
    """{quantity: how it was measured}."""


@dataclass(frozen=True)
class Breakdown:
    """The model breakdown of one ok rung (``analysis.attribution.breakdown``)."""

    method: str = "model"
    explained: float = 0.0
    """The modelled fraction of the measured time (above 1: the model overshoots)."""
    layers: dict[str, float] = field(default_factory=dict)
    """{layer: share of the measured time}; ``other`` = the unexplained rest (may be < 0)."""
    rows: list[BreakdownRow] = field(default_factory=list)
    labelled_rest: float = 0.0
    """The share of the rest labelled with a declared layer (a label, not a model)."""
    measured_ns_per_fma: float | None = None
    predicted_ns_per_fma: float | None = field(default=None, metadata=OMIT)
    """The model's time per multiply-add (ns): counted events × probed unit costs (and a
    compiled rung's in-core bounds), made without the rung's timing; ``explained`` is it over
    the measured time."""
    predicted_interval: Interval | None = field(default=None, metadata=OMIT)
    prediction: str = field(default="", metadata=OMIT)
    """What the prediction counted on: "" (the timed kernel) or the rung's Python twin."""
    explained_interval: Interval | None = field(default=None, metadata=OMIT)
    measured_interval: Interval | None = field(default=None, metadata=OMIT)
    intervals: dict[str, Interval] = field(default_factory=dict, metadata=OMIT)
    """{layer: [low, high] of its share}."""
    probe_doubt: str = field(default="", metadata=OMIT)
    """Why the probes may not price this rung now (their age, the load then and now, the
    rung's own reference loop): ``analysis.staleness.probe_doubt``; "" when nothing says so."""
    scale: Scale | None = field(default=ABSENT)
    """Set (or None) by the model since unit costs are scaled; absent from older files."""
    agreement: Agreement | None = field(default=ABSENT)
    """Set (None: perf failed) once perf profiled the rung."""
    compiled: CompiledQuantities | None = field(default=None, metadata=OMIT)
    """A compiled rung's measured quantities (``analysis.compiled``)."""
    closure: Interval | None = field(default=None, metadata=OMIT)
    """The ``explained`` range within which the model is taken as closing for this kind of
    rung (``analysis.attribution.CLOSURE``); outside it the profiles' shares are primary."""

    @property
    def closes(self) -> bool | None:
        """``explained`` lies within :attr:`closure` (None without one: an older file)."""
        if self.closure is None:
            return None
        return self.closure[0] <= self.explained <= self.closure[1]


@dataclass(frozen=True)
class LayerChange:
    """One layer's measured cost in the two rungs of a waterfall step (s per flop)."""

    before_s_per_flop: float
    after_s_per_flop: float
    method: str = ""
    """How the cost was measured (counted events × probed unit costs)."""

    @property
    def relative(self) -> float | None:
        """after / before − 1 (None when the earlier rung did not pay it)."""
        if not self.before_s_per_flop:
            return None
        return self.after_s_per_flop / self.before_s_per_flop - 1


@dataclass(frozen=True)
class WaterfallStep:
    """One step between consecutive ok rungs (``analysis.waterfall``)."""

    from_: str = field(metadata={JSON_NAME: "from"})
    """The earlier rung's name."""
    to: str
    speedup: float
    """Per flop: the earlier rung's time per flop over the later one's."""
    saved_s_per_flop: float
    layers: dict[str, float]
    """{layer: seconds per flop saved and credited to it from its measured change; ``other``:
    the unexplained rest}; a change within noise is left out (:attr:`noise_layers`)."""
    split: str = ""
    """How the saving was split (``by measured change``; older files: by the declared
    layers)."""
    speedup_interval: Interval | None = field(default=None, metadata=OMIT)
    within_noise: bool | None = field(default=None, metadata=OMIT)
    """The speedup's interval contains 1 (the step may be no step at all)."""
    changes: dict[str, LayerChange] = field(default_factory=dict, metadata=OMIT)
    """{layer: its measured cost before and after, and how it was measured}."""
    declared: list[str] = field(default_factory=list, metadata=OMIT)
    """The layers the later rung's file declares it removes (``REMOVES``): shown, not used."""
    contradiction: str = field(default="", metadata=OMIT)
    """Said when the measurements do not bear the declaration out."""
    saved_interval: Interval | None = field(default=None, metadata=OMIT)
    """[low, high] of the saving (s per flop): the earlier rung's timing interval minus the
    later one's (each median ± IQR/2)."""
    change_intervals: dict[str, Interval] = field(default_factory=dict, metadata=OMIT)
    """{layer or ``other``: [low, high] of its change (s per flop)}: the earlier rung's
    modelled cost's interval minus the later one's; ``other`` (the measured time minus the
    model): the saving's interval minus the modelled layers' changes'."""
    noise_layers: list[str] = field(default_factory=list, metadata=OMIT)
    """The layers (``other`` too) whose change's interval contains 0: within noise, not
    credited."""
    noise_s_per_flop: float = field(default=0.0, metadata=OMIT)
    """What their changes add up to (s per flop): the saving is ``layers`` plus this."""
    noise_interval: Interval | None = field(default=None, metadata=OMIT)
    """[low, high] of that sum: the saving's interval minus the credited changes' (None when
    no change is within noise)."""
