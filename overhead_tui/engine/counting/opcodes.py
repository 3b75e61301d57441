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
read from an ``array.array``, are found by their operands: at the first execution of each
unspecialised subscript or arithmetic instruction, the variable that pushed its container (or
operands) is found by a symbolic walk of the instruction's source line (``LOAD_FAST``,
``COPY``, ``SWAP``; :func:`operand_names`) and its type is read from the frame.  A read from an
``array.array`` of typecode ``d``/``f`` creates one float (``array_loads``, added to
``floats``); a write unboxes one (``array_stores``); an operation on a numpy array or scalar
creates a numpy scalar (``numpy_scalars``).  ``profilers.callgrind`` counts every
``PyFloat_FromDouble`` call exactly where valgrind is available.
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
    """Float objects created, derived from float-producing instructions and array reads."""
    array_loads: int = 0
    """Unspecialised subscript loads from a float ``array.array`` (each creates a float)."""
    array_stores: int = 0
    """Unspecialised subscript stores into a float ``array.array`` (each unboxes a float)."""
    numpy_scalars: int = 0
    """Unspecialised instructions acting on numpy arrays or scalars (each creates a numpy
    scalar object)."""
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
            "array_loads": self.array_loads / fmas,
            "array_stores": self.array_stores / fmas,
            "numpy_scalars": self.numpy_scalars / fmas,
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
    generic: dict[CodeType, dict[int, tuple[str, list[str | None]]]] = {}
    kinds: dict[tuple[CodeType, int], str] = {}

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call":
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            key = (frame.f_code, frame.f_lasti)
            if key not in offsets:  # first execution: what do its generic operands hold?
                code = frame.f_code
                if code not in generic:
                    generic[code] = operand_names(code)
                found = generic[code].get(frame.f_lasti)
                if found is not None:
                    kinds[key] = _operand_kind(found[0], found[1], frame.f_locals)
            offsets[key] += 1
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
    counts = _name(offsets, c_calls, python_calls - 1)  # minus the kernel's own call
    for key, kind in kinds.items():
        if kind == "array_load":
            counts.array_loads += offsets[key]
        elif kind == "array_store":
            counts.array_stores += offsets[key]
        elif kind == "numpy":
            counts.numpy_scalars += offsets[key]
    counts.floats += counts.array_loads
    return counts


_GENERIC_BASE = frozenset({"BINARY_SUBSCR", "STORE_SUBSCR", "BINARY_OP"})


def operand_names(code: CodeType) -> dict[int, tuple[str, list[str | None]]]:
    """{offset: (opname, [names of the local variables that pushed its operands])} for each
    subscript and arithmetic instruction of ``code`` (unspecialised names).

    A symbolic stack is run over each source line: ``LOAD_FAST``/``LOAD_DEREF``/``LOAD_NAME``
    push their name, ``COPY``/``SWAP`` move names, everything else pushes unknowns per its
    stack effect.  For a subscript the container comes first in the list.
    """
    found: dict[int, tuple[str, list[str | None]]] = {}
    stack: list[str | None] = []
    for ins in dis.get_instructions(code):
        if ins.starts_line is not None:
            stack.clear()
        op = ins.opname

        def pop(k: int) -> list[str | None]:
            return [stack.pop() if stack else None for _ in range(k)][::-1]

        if op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL"):
            stack.append(ins.argval if isinstance(ins.argval, str) else None)
            continue
        if op == "COPY":
            stack.append(stack[-ins.arg] if len(stack) >= (ins.arg or 1) else None)
            continue
        if op == "SWAP":
            if len(stack) >= (ins.arg or 1):
                stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
            continue
        if op == "BINARY_SUBSCR":
            container, _ = pop(2)
            found[ins.offset] = (op, [container])
            stack.append(None)
            continue
        if op == "STORE_SUBSCR":
            _, container, _ = pop(3)
            found[ins.offset] = (op, [container])
            continue
        if op == "BINARY_OP":
            left, right = pop(2)
            found[ins.offset] = (op, [left, right])
            stack.append(None)
            continue
        try:
            effect = dis.stack_effect(ins.opcode, ins.arg, jump=False)
        except ValueError:
            effect = 0
        if effect > 0:
            stack.extend([None] * effect)
            continue
        pop(-effect)
        if stack and not op.startswith(("STORE", "POP", "JUMP", "RETURN", "DELETE")):
            stack[-1] = None  # the instruction's result replaces its operands
    return found


def _operand_kind(opname: str, names: list[str | None], local_vars: Any) -> str:
    """What an unspecialised instruction acts on: array_load, array_store, numpy or other."""
    import array

    values = [local_vars.get(n) for n in names if n is not None]
    if opname in ("BINARY_SUBSCR", "STORE_SUBSCR") and values:
        container = values[0]
        if isinstance(container, array.array) and container.typecode in "fd":
            return "array_load" if opname == "BINARY_SUBSCR" else "array_store"
    numpy = sys.modules.get("numpy")
    if (
        opname != "STORE_SUBSCR"
        and numpy is not None
        and any(isinstance(v, (numpy.ndarray, numpy.generic)) for v in values)
    ):
        return "numpy"
    return "other"


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
