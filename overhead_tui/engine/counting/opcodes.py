"""Count executed bytecode instructions, Python calls and C calls of one kernel call.

Method (CPython 3.11+): the interpreter's own tracing hooks.  ``sys.settrace`` with
``frame.f_trace_opcodes = True`` reports every executed instruction as an ``opcode`` event
(counted per code object and instruction offset); ``sys.setprofile`` reports Python ``call``
events (function calls and generator resumptions) and ``c_call`` events (builtin functions and
methods, e.g. ``len``, ``sum``, ``numpy.zeros``).  Offsets are then named with
``dis.get_instructions(code, adaptive=True)`` *after* warm-up calls, so the specialised forms
the adaptive interpreter chose show (``BINARY_OP_MULTIPLY_FLOAT``, ``BINARY_SUBSCR_LIST_INT``).
A superinstruction (``LOAD_FAST__LOAD_FAST``) is one dispatch when running normally; under
tracing CPython 3.11 executes its two halves separately and reports both, so ``bytecodes``
counts instructions (halves included) and ``dispatches`` subtracts one per superinstruction
executed: the number of times the untraced eval loop dispatches.

Float objects created are *derived* from the executed instructions: in CPython 3.11 each
``BINARY_OP_{ADD,SUBTRACT,MULTIPLY}_FLOAT`` creates exactly one float (``PyFloat_FromDouble``;
the free list serves the memory, so allocator counters such as ``sys.getallocatedblocks`` or
tracemalloc miss it).  Floats created inside generic (unspecialised) instructions, such as a
read from an ``array.array``, are not visible this way; ``overhead_tui.engine.counting.callgrind``
counts every ``PyFloat_FromDouble`` call exactly where valgrind is available.
"""

from __future__ import annotations

import dis
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType, FrameType
from typing import Any

FLOAT_PRODUCING = frozenset(
    {
        "BINARY_OP_ADD_FLOAT",
        "BINARY_OP_SUBTRACT_FLOAT",
        "BINARY_OP_MULTIPLY_FLOAT",
    }
)
"""Specialised instructions that create exactly one float object each (CPython 3.11)."""

SUBSCRIPT_LOADS = frozenset(
    {
        "BINARY_SUBSCR",
        "BINARY_SUBSCR_LIST_INT",
        "BINARY_SUBSCR_TUPLE_INT",
        "BINARY_SUBSCR_DICT",
        "BINARY_SUBSCR_GETITEM",
        "BINARY_SUBSCR_ADAPTIVE",
    }
)
SUBSCRIPT_STORES = frozenset(
    {
        "STORE_SUBSCR",
        "STORE_SUBSCR_LIST_INT",
        "STORE_SUBSCR_DICT",
        "STORE_SUBSCR_ADAPTIVE",
    }
)

_IGNORED_C_CALLS = frozenset({"setprofile", "settrace"})


@dataclass
class EventCounts:
    """Events of one kernel call (absolute counts, not per FMA)."""

    bytecodes: int = 0
    dispatches: int = 0
    """Instruction dispatches of the untraced eval loop (superinstructions count once)."""
    by_opcode: dict[str, int] = field(default_factory=dict)
    python_calls: int = 0
    """Python function calls and generator resumptions (profile ``call`` events)."""
    builtin_calls: int = 0
    """Calls of builtin functions and methods (profile ``c_call`` events)."""
    numpy_calls: int = 0
    """The part of ``builtin_calls`` that went to numpy functions and methods."""
    floats: int = 0
    """Float objects created, derived from float-producing instructions (see module doc)."""
    instructions: list[tuple[str, int, str, str, int]] = field(default_factory=list)
    """Executed instructions: (code name, offset, adaptive opname, argrepr, count)."""

    def per(self, fmas: float) -> dict[str, Any]:
        """These counts divided by ``fmas`` multiply-adds (for the summary)."""
        return {
            "bytecodes": self.bytecodes / fmas,
            "dispatches": self.dispatches / fmas,
            "python_calls": self.python_calls / fmas,
            "builtin_calls": self.builtin_calls / fmas,
            "numpy_calls": self.numpy_calls / fmas,
            "floats": self.floats / fmas,
            "by_opcode": {k: v / fmas for k, v in sorted(self.by_opcode.items())},
        }


def _c_function_module(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    if module is None:
        owner = getattr(fn, "__self__", None)
        module = type(owner).__module__ if owner is not None else ""
    return str(module or "")


def count_events(fn: Callable[..., Any], args: tuple[Any, ...], warmups: int = 2) -> EventCounts:
    """Call ``fn(*args)`` ``warmups`` times untraced, then once traced; return its events.

    The warm-up calls let the adaptive interpreter specialise; the traced call is the one
    counted.  Not thread-safe with respect to other tracing in the process.
    """
    for _ in range(warmups):
        fn(*args)
    offsets: Counter[tuple[CodeType, int]] = Counter()
    c_calls: Counter[str] = Counter()
    python_calls = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            offsets[(frame.f_code, frame.f_lasti)] += 1
        return tracer

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal python_calls
        if event == "call":
            python_calls += 1
        elif event == "c_call" and getattr(arg, "__name__", "") not in _IGNORED_C_CALLS:
            c_calls[_c_function_module(arg)] += 1

    sys.setprofile(profiler)
    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
        sys.setprofile(None)
    return _name(offsets, c_calls, python_calls - 1)  # minus the kernel's own call


def _name(
    offsets: Counter[tuple[CodeType, int]], c_calls: Counter[str], python_calls: int
) -> EventCounts:
    names: dict[CodeType, dict[int, dis.Instruction]] = {}
    by_opcode: Counter[str] = Counter()
    executed = []
    for (code, offset), count in offsets.items():
        if code not in names:
            names[code] = {i.offset: i for i in _instructions(code)}
        instruction = names[code].get(offset)
        opname = instruction.opname if instruction else "UNKNOWN"
        by_opcode[opname] += count
        executed.append(
            (code.co_qualname, offset, opname, instruction.argrepr if instruction else "", count)
        )
    builtin = sum(c_calls.values())
    numpy = sum(v for k, v in c_calls.items() if k.split(".")[0] == "numpy")
    bytecodes = sum(by_opcode.values())
    supers = sum(v for k, v in by_opcode.items() if "__" in k)
    return EventCounts(
        bytecodes=bytecodes,
        dispatches=bytecodes - supers,
        by_opcode=dict(by_opcode),
        python_calls=max(0, python_calls),
        builtin_calls=builtin,
        numpy_calls=numpy,
        floats=sum(by_opcode[name] for name in FLOAT_PRODUCING),
        instructions=sorted(executed, key=lambda x: (x[0], x[1])),
    )


def _instructions(code: CodeType) -> list[dis.Instruction]:
    try:
        return list(dis.get_instructions(code, adaptive=True))  # type: ignore[call-arg]
    except TypeError:  # Python < 3.11 has no adaptive view
        return list(dis.get_instructions(code))
