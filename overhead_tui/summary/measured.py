"""What a rung's worker reports and its ``ScenarioResult`` stores as it came: the BLAS
libraries it loaded, its counted events (per multiply-add) and executed instructions, and how
a compiled rung was built.

Standard library only: the worker (``worker.protocol``) sends the BLAS and bytecode records
under any interpreter.  Keys absent from older files are :data:`~overhead_tui.summary.codec.ABSENT`
and stay out of them when written back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from overhead_tui.summary.codec import ABSENT, OMIT


@dataclass(frozen=True)
class Blas:
    """A BLAS library as threadpoolctl names it."""

    library: str | None = None
    """``internal_api``: openblas, mkl, blis ..."""
    version: str | None = None
    architecture: str | None = None
    """The kernel family it chose at run time, e.g. ``Haswell``."""
    threads: int | None = None
    """Its thread pool's size."""


@dataclass(frozen=True)
class BlasLibrary(Blas):
    """One BLAS library loaded in the worker (a rung's ``blas``: numpy's first)."""

    threading_layer: str | None = None
    filepath: str | None = None


@dataclass(frozen=True)
class BytecodeLine:
    """One executed instruction at the last counted size (a rung's ``bytecode``)."""

    code: str = ""
    """The code object's name."""
    offset: int = 0
    opname: str = ""
    """Adaptive (specialised) name."""
    arg: str = ""
    """``argrepr``."""
    per_fma: float = 0.0
    """Executions per multiply-add."""
    fused_per_fma: float = field(default=0.0, metadata=OMIT)
    """Of those, executions as the second half of a 3.11/3.12 superinstruction: executed in
    the dispatch of the first half, so not a dispatch the model charges."""


@dataclass
class Counters:
    """The interpreter's events in a kernel call (``worker.counting.opcodes``): absolute in the
    worker's ``EventCounts``, per multiply-add in :class:`EventsPerFma`."""

    bytecodes: float = 0
    """Executed instructions."""
    dispatches: float = 0
    """Instruction dispatches of the uninstrumented eval loop (a superinstruction's second
    half is no dispatch)."""
    python_calls: float = 0
    """Python function calls and generator resumptions (profile ``call`` events)."""
    builtin_calls: float = 0
    """Calls of builtin functions and methods (profile ``c_call`` events)."""
    numpy_calls: float = 0
    """The part of ``builtin_calls`` that went to numpy functions and methods."""
    floats: float = 0
    """Float objects created, derived from float-producing instructions and array reads."""
    array_loads: float = 0
    """Unspecialised subscript loads from a float ``array.array`` (each creates a float)."""
    array_stores: float = 0
    """Unspecialised subscript stores into a float ``array.array`` (each unboxes a float)."""
    numpy_scalars: float = 0
    """Unspecialised instructions acting on numpy arrays or scalars (each creates a numpy
    scalar object)."""
    c_calls: float = 0
    """Builtin (C) functions that builtins called from C, e.g. ``operator.mul`` by ``map``
    (``worker.counting.builtin_census``): no bytecode runs for them."""
    c_floats: float = 0
    """Floats those C calls made (one per ``operator.mul`` of two floats)."""
    c_entries: float = 0
    """Python function frames entered from C code rather than by an inlined Python call:
    a lambda that ``map``, ``sorted`` or ``functools.reduce`` calls, a dunder method a slot
    calls (``__add__`` from ``BINARY_OP``, ``__init__`` from a type call), a function called
    through ``CALL_FUNCTION_EX``; generator resumptions are not among them
    (``worker.counting.opcodes``, priced at the ``call_overhead`` probe's
    ``c_entry_item_ns``)."""
    generators: float = 0
    """Generator (and coroutine) objects started: a generator expression's or a generator
    function's first resumption, the profile ``call`` event at its code's first ``RESUME``
    (``worker.counting.opcodes``).  Each is an object made, a frame entered for the first
    time and finished, beyond its dispatches: priced at the ``call_overhead`` probe's
    ``generator_ns`` instead of a Python call."""


COUNTERS: tuple[str, ...] = tuple(f.name for f in fields(Counters))
"""The names of the :class:`Counters`."""


@dataclass(frozen=True)
class NumpyOperations:
    """One kind of numpy operation of a kernel call at one size per call
    (``worker.counting.numpy_census``; the kinds are its ``KINDS``)."""

    kind: str = ""
    """elementwise, elementwise_out, outer, reduce, einsum, create, view, scalar_index, blas
    or other."""
    operation: str = ""
    """The ufunc or function (``multiply.outer``, ``einsum``, ``index``)."""
    calls_per_fma: float = 0.0
    """Calls per multiply-add of the kernel at its timed n."""
    elements: float = 0.0
    """float64-equivalent elements each call touches (output size; multiply-adds for
    einsum and BLAS; input size for a reduction) at the timed n."""


INTERPRETED_DISPATCHES = 0.05
"""Dispatches per multiply-add from which a kernel counts as interpreted (below it: compiled,
no interpreter work to price)."""


@dataclass(frozen=True)
class SiteCost:
    """One site of C work in a kernel (``worker.counting.sites``): an instruction whose work
    beyond its dispatch runs in C code no interpreter probe prices, timed in the worker at its
    own operands at each counted size and extrapolated to the timed n."""

    code: str = ""
    """The code object's name."""
    offset: int = 0
    op: str = ""
    """Base instruction: ``CALL``, ``BINARY_OP``, ``BINARY_SUBSCR``, ``STORE_SUBSCR``,
    ``COMPARE_OP``, ``CONTAINS_OP`` or ``BUILD_TUPLE``."""
    label: str = ""
    """What runs, with its operands' types and sizes at the largest counted size."""
    numpy: bool = False
    """numpy does the work (a numpy callable, array or scalar among its operands)."""
    c_call: bool = False
    """A call of a builtin function or method (one profile ``c_call`` event an execution)."""
    iterates: bool = False
    """An operand is a C iterator its timing builds again (``sum(map(f, x, y))``): the calls
    that iterator makes from C are inside its timing."""
    calls_per_fma: float = 0.0
    """Executions per multiply-add at the timed n."""
    call_ns: float | None = None
    """ns an execution costs beyond its dispatch when its operands hold no items (the fit's
    intercept); None: not timed (``note`` says why)."""
    element_ns: float = 0.0
    """ns per item its operands hold (the fit's slope: its element loop)."""
    elements: float = 0.0
    """Items its operands hold at the timed n."""
    spread: list[float] = field(default_factory=list)
    """[low, high] of an execution's ns at the largest counted size over its median (its
    timing windows' range, as factors)."""
    sizes: list[int] = field(default_factory=list)
    """The counted sizes it was timed at."""
    measured_ns: list[float] = field(default_factory=list)
    """ns an execution cost at each of those sizes."""
    census_priced: bool | None = None
    """numpy work of a priced kind was seen at it by the numpy census (its element loops are
    the census's rows); False: the census saw none (a method such as ``ndarray.dot``, a
    function run on plain copies such as ``np.outer``) or could not run, so its own timing's
    fit prices its loop; None: a file from before this was recorded."""
    kernel_s: float | None = None
    """Seconds of one call of the kernel at the timed n right after this site's timings (a
    kernel of at most ``phase.KERNEL_BESIDE_MAX_S`` a call): the machine's speed for this code
    at the site's moment; None: not timed."""
    runs_python: bool = False
    """It ran the user's Python code (a dunder method, a lambda): not timed, its frames and
    bytecodes are counted and priced by the interpreter rows."""
    note: str = ""
    """Why it was not timed: it runs Python code (its frames are counted), or an operand
    could not be evaluated again."""


@dataclass
class EventsPerFma(Counters):
    """A rung's exact events per multiply-add at its timed n (``worker.counting.phase``:
    counted at small sizes, extrapolated).  The counters newer than the first files
    (``array_loads``, ``array_stores``, ``numpy_scalars``), ``n`` and ``counted_sizes`` are
    :data:`ABSENT` (falsy: none) in older ones."""

    array_loads: float = ABSENT
    array_stores: float = ABSENT
    numpy_scalars: float = ABSENT
    c_calls: float = ABSENT
    c_floats: float = ABSENT
    c_entries: float = ABSENT
    generators: float = ABSENT
    n: int = ABSENT
    """The matrix order the counts are per multiply-add at."""
    counted_sizes: list[int] = ABSENT
    """The small n counted at."""
    by_opcode: dict[str, float] = field(default_factory=dict)
    """Executed instructions by adaptive (specialised) name."""
    numpy_operations: list[NumpyOperations] = field(default_factory=list, metadata=OMIT)
    """The numpy operations on arrays, by kind and size (``worker.counting.numpy_census``);
    empty where the kernel makes none (or in older files)."""
    site_reference_ns: list[float] | None = field(default=None, metadata=OMIT)
    """ns/dispatch of the dispatch probe's reference loop timed beside the sites (before and
    after them): the machine's speed while they were timed, which the model brings to the
    speed of the rung's samples (``analysis.sites``)."""
    int_made_share: float = ABSENT
    """The share of the int-arithmetic results (``INT_RESULT_OPS``) at n that are new objects,
    outside CPython's small-int cache (``worker.counting.small_ints``); :data:`ABSENT` in
    older files (each counted as one)."""
    site_kernel_s: list[float] | None = field(default=None, metadata=OMIT)
    """Seconds per kernel call at the timed n, timed beside the sites (before and after
    them) where a call takes at most ``phase.KERNEL_BESIDE_MAX_S``: the machine's speed for
    this very code while the sites were timed, which the model prefers to the reference loop
    (a noisy neighbour can slow code-heavy C calls and not the small dispatch loop)."""
    sites: list[SiteCost] | None = field(default=None, metadata=OMIT)
    """The kernel's sites of C work, timed at their own operands (``worker.counting.sites``);
    None in files from before them and for a Python twin."""
    python_twin: bool = field(default=False, metadata=OMIT)
    """Counted on the rung's Python twin (its ``counted_kernel``: the source a compiler such
    as Cython or mypyc compiled, run as bytecode), not on the timed kernel; the model prices
    only the layers the rung carries (``analysis.attribution``)."""


@dataclass(frozen=True)
class LoopNest:
    """How often each loop of a C rung's kernel ran in one call at :attr:`n`, counted by
    gcc's arc profiling (``worker.loop_nest``)."""

    n: int = 0
    loops: list[list[int]] = field(default_factory=list)
    """[source line, iterations, entries] of each loop, the most iterated first."""

    def entries(self, line: int | None) -> int:
        """How many times the loop whose condition is on ``line`` was entered (0 when no loop
        was counted there)."""
        return next((entries for at, _, entries in self.loops if at == line), 0)


@dataclass(frozen=True)
class GeneratedCode:
    """One iteration of a compiled rung's hot loop, read from its own code
    (``worker.hotloop.hot_loop``): what the compiled-rung model (``analysis.compiled``) counts.
    The counts newer than the first files (``instructions`` … ``chains``) default to none."""

    method: str = ""
    """Where the code came from: ``cc -S`` of the rung's source with its flags, or numba's
    ``inspect_asm`` of its compiled functions."""
    fp_instructions: int = 0
    """FP multiply, add, subtract and FMA instructions per iteration."""
    fma_instructions: int = 0
    width_bits: int | None = None
    """The widest packed FP register used (bits); None: scalar code."""
    flops_per_instruction: float | None = None
    """Flops per FP instruction on average (lanes × 2 for an FMA)."""
    hot_loop: bool = False
    instructions: int = field(default=0, metadata=OMIT)
    """Instructions per iteration (its compare and branch included)."""
    flops: float = field(default=0.0, metadata=OMIT)
    """Flops per iteration (multiply-adds: half of it)."""
    loads: int = field(default=0, metadata=OMIT)
    """Instructions reading memory per iteration."""
    stores: int = field(default=0, metadata=OMIT)
    """Instructions writing memory per iteration."""
    chains: list[dict[str, int]] = field(default_factory=list, metadata=OMIT)
    """Loop-carried dependency chains, each {kind: operations per iteration}: ``fadd``,
    ``fmul``, ``fma`` (an accumulator register), ``stack_fadd`` (a sum in a stack slot)."""
    load_widths: list[int] = field(default_factory=list, metadata=OMIT)
    """The bits each load of an iteration moves (64 for a scalar or a broadcast)."""
    store_widths: list[int] = field(default_factory=list, metadata=OMIT)
    """The bits each store of an iteration moves."""
    loop_line: int | None = field(default=None, metadata=OMIT)
    """The source line of its closing branch (a ``.loc`` of ``cc -g``): its loop's condition,
    where ``worker.loop_nest`` counts it; None without debug lines."""
    loop_nest: LoopNest | None = field(default=None, metadata=OMIT)
    """Its loops' counts at the rung's n (C rungs with gcc; ``worker.loop_nest``)."""
    shuffles: int = field(default=0, metadata=OMIT)
    """Register-to-register vector shuffles per iteration (permutes, inserts, extracts,
    unpacks, broadcasts from a register: ``worker.hotloop``); a broadcast from memory is a
    load, not one of them."""
    family: str = field(default="", metadata=OMIT)
    """The lower-precision instruction family of its FP instructions (``avx512_bf16``,
    ``avx512_vnni``, ``avx512_fp16``: the ``precision_peak`` probe's names); empty for
    float32/float64 code."""

    @property
    def fmas_per_iteration(self) -> float:
        """Multiply-adds per iteration (0 for older files without ``flops``)."""
        return self.flops / 2

    def per_fma(self, count: float) -> float | None:
        """``count`` per iteration over the iteration's multiply-adds (None without them)."""
        return count / self.fmas_per_iteration if self.fmas_per_iteration else None


@dataclass(frozen=True)
class ResidentTiming:
    """A compiled rung's own kernel timed again at its n with A and B resident in L1
    (``worker.compiled_rung``, after the samples): every page of A and B is one physical page,
    so the same code walks the same addresses with every load of them an L1 hit.  The rung's
    time per multiply-add minus this is what the model calls the memory hierarchy's cost
    (``analysis.compiled``).  The same kernel on aligned copies on 2 MiB pages prices their
    placement."""

    n: int = 0
    """The order it was timed at (the rung's own)."""
    page_bytes: int = 0
    """The one page A and B are made of."""
    samples_s_per_fma: list[float] = field(default_factory=list)
    """Each sample's seconds per multiply-add."""
    huge_page_samples_s_per_fma: list[float] = field(default_factory=list)
    """Each sample's seconds per multiply-add of the same kernel on copies of the run's A and
    B on fresh 2 MiB pages, 64-byte aligned (``worker.compiled_rung.huge_page_inputs``);
    empty where transparent huge pages were not granted.  The rung's time beyond it is the
    cost of its arrays' placement (cache-line splits, TLB misses)."""
    huge_page_share: float | None = None
    """The share of those copies' bytes the kernel put on huge pages (``/proc/self/smaps``)."""
    spread_n: int | None = None
    """The neighbouring order its kernel was timed at to price cache-set conflicts: the
    nearest larger one whose row (``spread_n`` × the element's bytes) is an odd number of
    64-byte lines, so a column's lines reach every L1 set (``worker.compiled_rung.
    spreading_order``); None where the rung's own rows already do."""
    spread_samples_s_per_fma: list[float] = field(default_factory=list)
    """Each sample's seconds per multiply-add of its kernel at :attr:`spread_n` (fresh inputs
    of that order); the rung's time beyond it is what its row stride's set conflicts cost."""


@dataclass(frozen=True)
class BuildInfo:
    """How a compiled rung was built (``kit.cbuild.build``)."""

    compiler: str = ""
    compiler_version: str = ""
    """The first line of ``compiler --version``."""
    flags: list[str] = field(default_factory=list)
    link_flags: list[str] = field(default_factory=list)
    command: str = ""
    """The exact command that built the module (run in the cache folder)."""
    module: str = ""
    cached: bool = False
    """Loaded from the per-machine cache (not compiled in this run)."""
    build_s: float | None = None
    """Seconds to build or load it."""
    vectorization: list[str] = field(default_factory=list)
    """The compiler's report lines on the loops it vectorised."""
    cache_warning: str | None = field(default=None, metadata=OMIT)
    """Why a private temporary cache was used (an unwritable cache dir)."""
    cold_build_s: float | None = field(default=None, metadata=OMIT)
    """Seconds it took to build from source, in this run or an earlier one (kept in the build
    cache beside the module), so a warm run still says what a cold one costs; None where not
    recorded (a cache written before it was kept)."""
