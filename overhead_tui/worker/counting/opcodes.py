"""Count executed bytecode instructions, Python calls and C calls of one kernel call.

Method, by interpreter version (:data:`METHOD` names the one in use):

* CPython 3.11: ``sys.settrace`` with ``frame.f_trace_opcodes = True`` reports every executed
  instruction as an ``opcode`` event (counted per code object and instruction offset).
* CPython 3.12+: ``sys.monitoring`` ``INSTRUCTION`` events (tool id :data:`TOOL_ID`), counted
  the same way.  Its ``sys.settrace`` opcode events ride on ``sys.monitoring`` and miss
  instructions and calls, so they are not used.  The kernel runs as a *copy* of its function,
  so the instrumentation (which in 3.12 also removes the superinstructions of the code it
  touches for good) never reaches the original that is timed.

In both, ``sys.setprofile`` reports Python ``call`` events (function calls and generator
resumptions) and ``c_call`` events (builtin functions and methods, e.g. ``len``, ``sum``,
``numpy.zeros``; a type call such as ``range(n)`` is none).  Offsets are named with
``dis.get_instructions(code, adaptive=True)`` after warm-up calls run *without* the counter,
so the specialised forms the adaptive interpreter chose show (``BINARY_OP_MULTIPLY_FLOAT``,
``BINARY_SUBSCR_LIST_INT``); :func:`base_opname` maps them (and ``INSTRUMENTED_*``, and the
3.11/3.12 superinstructions) to the base instruction, the same across versions where the
compiler emits the same bytecode (``by_base_opcode``).

Dispatches: in 3.11 and 3.12 the quickener fuses pairs of adjacent instructions into
*superinstructions* (``LOAD_FAST__LOAD_FAST`` ...; :func:`super_heads` rebuilds where), which
execute both halves in one dispatch when running normally, while the counter reports both.  A
run ``LOAD_FAST a; LOAD_FAST b; LOAD_FAST c`` holds two overlapping pairs but dispatches twice
(``a+b``, then ``c``), so ``dispatches`` follows the executed sequence: an instruction reached
as the second half of the superinstruction just executed is not a dispatch.  3.13 emits its
superinstructions (``LOAD_FAST_LOAD_FAST``) at compile time: one instruction, one dispatch.

Float objects created are *derived* from the executed instructions: each
``BINARY_OP_{ADD,SUBTRACT,MULTIPLY}_FLOAT`` produces one float (``PyFloat_FromDouble``; the
free list serves the memory, so allocator counters such as ``sys.getallocatedblocks`` or
tracemalloc miss it).  From 3.12 on these instructions *reuse* an operand whose only
reference is the stack (the result of the arithmetic just before, as in ``s += x * y``), so
creations there are counted only where no operand is such a temporary (found by walking the
straight-line bytecode back to the instruction that pushed each operand).  Floats created
inside generic (unspecialised) instructions, such as a read from an ``array.array``, are
found by their operands: at the first execution of each unspecialised subscript or arithmetic
instruction, the variable that pushed its container (or operands) is found by a symbolic walk
of the instruction's source line (``LOAD_FAST``, ``COPY``, ``SWAP``; :func:`operand_names`)
and its type is read from the frame.  A read from an ``array.array`` of typecode ``d``/``f``
creates one float (``array_loads``, added to ``floats``); a write unboxes one
(``array_stores``); an operation on a numpy array or scalar creates a numpy scalar
(``numpy_scalars``).  ``profilers.callgrind`` counts every ``PyFloat_FromDouble`` call exactly
where valgrind is available.
"""

from __future__ import annotations

import dis
import sys
import types
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

from overhead_tui.summary.measured import Counters
from overhead_tui.summary.vocabulary import INT_RESULT_OPS
from overhead_tui.worker.counting.frames import Profile, entries_from_c, generators_started
from overhead_tui.worker.counting.instructions import (
    FLOAT_PRODUCING,
    RUNTIME_SUPERINSTRUCTIONS,
    adaptive_instructions,
    base_opname,
    operand_kind,
    operand_names,
    reuses_operand,
    super_heads,
)
from overhead_tui.worker.counting.sites import PROBE_PRICED, Site, SiteRecorder
from overhead_tui.worker.counting.small_ints import IntResults

USE_MONITORING = sys.version_info >= (3, 12) and hasattr(sys, "monitoring")
"""Count instructions with ``sys.monitoring`` (3.12+) rather than ``sys.settrace``."""

TOOL_ID = 4
"""The ``sys.monitoring`` tool id the counter takes (ids 0-2 and 5 are named for debuggers,
coverage, profilers and optimisers; 3 and 4 are free for tools like this one)."""

METHOD = (
    "sys.monitoring INSTRUCTION events + sys.setprofile; floats derived (array reads by "
    "their operand's type)"
    if USE_MONITORING
    else "sys.settrace opcode events + sys.setprofile; floats derived (array reads by their "
    "operand's type)"
)
"""How this interpreter's events are counted (for the summary's ``method``)."""


@dataclass
class EventCounts(Counters):
    """Events of one kernel call (absolute counts, not per FMA; ints)."""

    by_opcode: dict[str, int] = field(default_factory=dict)
    """Executed instructions by adaptive (specialised) name."""
    by_base_opcode: dict[str, int] = field(default_factory=dict)
    """Executed instructions by base name (:func:`base_opname`): comparable across versions."""
    instructions: list[tuple[str, int, str, str, int]] = field(default_factory=list)
    """Executed instructions: (code name, offset, adaptive opname, argrepr, count)."""
    fused: dict[tuple[str, int], int] = field(default_factory=dict)
    """(code name, offset) → executions as the second half of a 3.11/3.12 superinstruction
    (counted in ``instructions``, not dispatched)."""
    sites: list[tuple[Site, int]] = field(default_factory=list)
    """The sites of C work (``counting.sites``) with their executions, when asked for."""
    int_results: dict[tuple[str, int], tuple[int, int, int]] = field(default_factory=dict)
    """(code name, offset) of each specialised int-arithmetic instruction whose expression
    was evaluated again → (executions, results outside the small-int cache, largest
    magnitude) (``counting.small_ints``)."""


class _Sequence:
    """Counts executed (code, offset) pairs and the superinstruction second halves among
    them, following the executed order (see the module doc)."""

    def __init__(self, sites: SiteRecorder | None = None) -> None:
        self.sites = sites
        self.offsets: Counter[tuple[CodeType, int]] = Counter()
        self.halves = 0
        self.fused: Counter[tuple[CodeType, int]] = Counter()
        """(code, offset) executed as the second half of a superinstruction: no dispatch."""
        self._pending: tuple[CodeType, int] | None = None
        self._heads: dict[tuple[CodeType, int], tuple[CodeType, int]] = {}
        self._seen: set[CodeType] = set()
        self._generic: dict[CodeType, dict[int, tuple[str, list[str | None]]]] = {}
        self.kinds: dict[tuple[CodeType, int], str] = {}
        """(code, offset) of a generic instruction → what it acted on at its first execution
        (:func:`operand_kind`)."""
        self.ints = IntResults()
        """Int arithmetic's results against the small-int cache (``counting.small_ints``)."""

    def step(self, code: CodeType, offset: int, frame: FrameType | None = None) -> None:
        key = (code, offset)
        if self.sites is not None and self.sites.owner is not None:
            self.sites.owner.inside[key] += 1  # library code run by a site: its timing has it
            return
        if key not in self.offsets:  # first execution: what do its generic operands hold?
            if code not in self._generic:
                self._generic[code] = operand_names(code)
            found = self._generic[code].get(offset)
            if found is not None or self.sites is not None:
                here = frame if frame is not None else sys._getframe(1)
                if found is not None:
                    self.kinds[key] = operand_kind(found[0], found[1], here.f_locals)
                if self.sites is not None:
                    self.sites.first(code, offset, here)
            self.ints.first(code, offset)
        if self.ints.watches(key):
            self.ints.step(key, frame if frame is not None else sys._getframe(1))
        self.offsets[key] += 1
        if not RUNTIME_SUPERINSTRUCTIONS:
            return
        if code not in self._seen:
            self._seen.add(code)
            self._heads.update({(code, a): (code, b) for a, b in super_heads(code).items()})
        if key == self._pending:
            self.halves += 1
            self.fused[key] += 1
            self._pending = None
        else:
            self._pending = self._heads.get(key)


def count_events(
    fn: Callable[..., object], args: tuple[object, ...], warmups: int = 2, sites: bool = False
) -> EventCounts:
    """Call ``fn(*args)`` ``warmups`` times uncounted, then once counted; return its events.

    The warm-up calls let the adaptive interpreter specialise; the counted call is the one
    counted (with ``sys.monitoring``, a copy of ``fn`` is warmed up and counted, see the module
    doc).  ``sites``: also capture the sites of C work (``counting.sites``).  Not thread-safe
    with respect to other tracing in the process.
    """
    recorder = SiteRecorder() if sites else None
    if USE_MONITORING:
        return _count_monitoring(fn, args, warmups, recorder)
    return _count_settrace(fn, args, warmups, recorder)


def _count_settrace(
    fn: Callable[..., object], args: tuple[object, ...], warmups: int, recorder: SiteRecorder | None
) -> EventCounts:
    for _ in range(warmups):
        fn(*args)
    sequence = _Sequence(recorder)
    profile = Profile(recorder)

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            sequence.step(frame.f_code, frame.f_lasti, frame)
        return tracer

    sys.setprofile(profile)
    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return _name(sequence, profile, own=None)


def _copy(fn: Callable[..., object]) -> Callable[..., object]:
    """A copy of a Python function with its own code object (else ``fn`` itself)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    clone = types.FunctionType(
        fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
    )
    clone.__kwdefaults__ = fn.__kwdefaults__
    clone.__qualname__ = fn.__qualname__
    return clone


def _count_monitoring(
    fn: Callable[..., object], args: tuple[object, ...], warmups: int, recorder: SiteRecorder | None
) -> EventCounts:
    monitoring = getattr(sys, "monitoring")  # noqa: B009 - 3.12+: absent from 3.11's stubs
    fn = _copy(fn)
    for _ in range(warmups):
        fn(*args)
    sequence = _Sequence(recorder)
    profile = Profile(recorder)
    own = sys._getframe().f_code
    event = monitoring.events.INSTRUCTION
    monitoring.use_tool_id(TOOL_ID, "overhead-tui counting")
    try:
        monitoring.register_callback(TOOL_ID, event, sequence.step)
        sys.setprofile(profile)
        monitoring.set_events(TOOL_ID, event)
        try:
            fn(*args)
        finally:
            monitoring.set_events(TOOL_ID, 0)
            sys.setprofile(None)
        monitoring.register_callback(TOOL_ID, event, None)
    finally:
        monitoring.free_tool_id(TOOL_ID)
    for _ in range(warmups):  # instrumentation removed: let it specialise again for the names
        fn(*args)
    return _name(sequence, profile, own=own)


def _name(sequence: _Sequence, profile: Profile, own: CodeType | None) -> EventCounts:
    tally = _Tally()
    halves = sequence.halves
    for (code, offset), count in sequence.offsets.items():
        if code is not own:  # the counter's own frame, after the kernel returned
            tally.add(code, offset, count)
    c_calls = profile.c_calls
    python_calls = profile.python_calls
    if sequence.sites is not None:  # what timed sites ran inside them is priced by their timing
        c_calls = Counter(c_calls)
        for site in sequence.sites.sites.values():
            if site.timeable:
                c_calls.subtract(site.inside_c)
                python_calls -= site.inside_calls
            else:  # its library code runs as counted: price it as such
                for (code, offset), count in site.inside.items():
                    tally.add(code, offset, count)
    by_opcode, executed = tally.by_opcode, tally.executed
    builtin = sum(max(0, v) for v in c_calls.values())
    numpy = sum(max(0, v) for k, v in c_calls.items() if k.split(".")[0] == "numpy")
    bytecodes = sum(by_opcode.values())
    kinds: Counter[str] = Counter()
    for key, kind in sequence.kinds.items():
        if key[0] is not own:
            kinds[kind] += sequence.offsets[key]
    return EventCounts(
        bytecodes=bytecodes,
        dispatches=bytecodes - halves,
        by_opcode=dict(by_opcode),
        by_base_opcode=dict(tally.by_base),
        python_calls=max(0, python_calls - 1),  # minus the kernel's own call
        c_entries=entries_from_c(profile, sequence, tally),
        generators=generators_started(profile),
        int_results={
            (code.co_qualname, offset): (r.count, r.made, r.largest)
            for (code, offset), r in sequence.ints.results.items()
            if code is not own and tally.opname(code, offset) in INT_RESULT_OPS
        },
        builtin_calls=builtin,
        numpy_calls=numpy,
        floats=tally.floats + kinds["array_load"],
        array_loads=kinds["array_load"],
        array_stores=kinds["array_store"],
        numpy_scalars=kinds["numpy"],
        instructions=sorted(executed, key=lambda x: (x[0], x[1])),
        fused={
            (code.co_qualname, offset): count
            for (code, offset), count in sequence.fused.items()
            if code is not own
        },
        sites=[
            (site, sequence.offsets[key])
            for key, site in (sequence.sites.sites.items() if sequence.sites else ())
            if key[0] is not own and tally.opname(*key) not in PROBE_PRICED
        ],
    )


class _Tally:
    """Executed instructions named by their adaptive form and added up: by name, by base name,
    each (code, offset) with its count, and the floats they created."""

    def __init__(self) -> None:
        self.names: dict[CodeType, dict[int, dis.Instruction]] = {}
        self.by_opcode: Counter[str] = Counter()
        self.by_base: Counter[str] = Counter()
        self.executed: list[tuple[str, int, str, str, int]] = []
        self.floats = 0

    def instruction(self, code: CodeType, offset: int) -> dis.Instruction | None:
        """The instruction at (code, offset) as it ran (after the counted call's warm-ups)."""
        if code not in self.names:
            self.names[code] = {i.offset: i for i in adaptive_instructions(code)}
        return self.names[code].get(offset)

    def opname(self, code: CodeType, offset: int) -> str:
        instruction = self.instruction(code, offset)
        return instruction.opname if instruction else "UNKNOWN"

    def add(self, code: CodeType, offset: int, count: int) -> None:
        instruction = self.instruction(code, offset)
        opname = instruction.opname if instruction else "UNKNOWN"
        self.by_opcode[opname] += count
        self.by_base[base_opname(opname)] += count
        if opname in FLOAT_PRODUCING and not reuses_operand(code, offset):
            self.floats += count
        self.executed.append(
            (code.co_qualname, offset, opname, instruction.argrepr if instruction else "", count)
        )
