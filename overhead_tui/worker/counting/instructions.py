"""CPython instructions across versions: base names of specialised, instrumented and super-
instructions, the pairs the 3.11/3.12 quickener fuses, stack shapes, and what pushed an
instruction's operands (the symbolic walks the counter uses to find created floats).
"""

from __future__ import annotations

import bisect
import dis
import functools
import opcode as _opcode
import sys
from collections.abc import Mapping
from types import CodeType

FLOAT_PRODUCING = frozenset(
    {
        "BINARY_OP_ADD_FLOAT",
        "BINARY_OP_SUBTRACT_FLOAT",
        "BINARY_OP_MULTIPLY_FLOAT",
    }
)
"""Specialised instructions that produce one float object each (CPython 3.11+)."""


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


SUPER_PAIRS = frozenset(
    {
        ("LOAD_FAST", "LOAD_FAST"),
        ("LOAD_FAST", "LOAD_CONST"),
        ("LOAD_CONST", "LOAD_FAST"),
        ("STORE_FAST", "LOAD_FAST"),
        ("STORE_FAST", "STORE_FAST"),
    }
)
"""Adjacent base instructions the 3.11 and 3.12 quickener fuses into one superinstruction
(``_PyCode_Quicken``: every such pair, overlapping ones included)."""


RUNTIME_SUPERINSTRUCTIONS = (3, 11) <= sys.version_info[:2] < (3, 13)
"""True where superinstructions are made at run time (3.11, 3.12); 3.13 compiles them."""


REUSES_FLOAT_OPERANDS = sys.version_info >= (3, 12)
"""True where float arithmetic writes its result into an operand referenced only by the
stack instead of creating a float (``DECREF_INPUTS_AND_REUSE_FLOAT``, CPython 3.12+)."""


_STACK_EFFECTS: dict[str, tuple[int, int]] = {
    "LOAD_FAST": (0, 1),
    "LOAD_FAST_CHECK": (0, 1),
    "LOAD_FAST_AND_CLEAR": (0, 1),
    "LOAD_CONST": (0, 1),
    "LOAD_DEREF": (0, 1),
    "LOAD_NAME": (0, 1),
    "LOAD_SMALL_INT": (0, 1),
    "LOAD_FAST_LOAD_FAST": (0, 2),
    "BINARY_OP": (2, 1),
    "BINARY_SUBSCR": (2, 1),
    "UNARY_NEGATIVE": (1, 1),
}
"""(pops, pushes) of the base instructions the operand walk steps over; it stops elsewhere."""


_FRESH_PRODUCERS = frozenset({"BINARY_OP", "UNARY_NEGATIVE"})
"""Base instructions whose result is a new object referenced only by the stack."""


def base_opname(name: str) -> str:
    """The base instruction of an opcode name: ``BINARY_OP_MULTIPLY_FLOAT`` → ``BINARY_OP``,
    ``INSTRUMENTED_FOR_ITER`` → ``FOR_ITER``, ``LOAD_FAST__LOAD_CONST`` → ``LOAD_FAST``,
    ``JUMP_BACKWARD_QUICK`` → ``JUMP_BACKWARD``; a base name is returned as is."""
    return _BASE_NAMES.get(name, name)


def _base_names() -> dict[str, str]:
    names: dict[str, str] = {}
    specializations = getattr(_opcode, "_specializations", {}) or {}
    for base, special in specializations.items():
        for name in special:
            names[name] = base
    for name in dis.opname:
        if name.startswith("INSTRUMENTED_"):
            names[name] = name.removeprefix("INSTRUMENTED_")
        elif "__" in name and not name.startswith("<"):
            names[name] = name.split("__", 1)[0]
    for name in list(names) + list(dis.opname):
        for suffix in ("_ADAPTIVE", "_QUICK"):
            if name.endswith(suffix) and name.removesuffix(suffix) in dis.opmap:
                names[name] = name.removesuffix(suffix)
    return names


_BASE_NAMES = _base_names()


def super_heads(code: CodeType) -> dict[int, int]:
    """Offsets where the 3.11/3.12 quickener puts a superinstruction → its second half's
    offset (empty on other versions).  Pairs of adjacent base instructions in
    :data:`SUPER_PAIRS`, overlapping ones included, as ``_PyCode_Quicken`` makes them."""
    if not RUNTIME_SUPERINSTRUCTIONS:
        return {}
    heads = {}
    previous: dis.Instruction | None = None
    for instruction in dis.get_instructions(code):
        if previous is not None and (previous.opname, instruction.opname) in SUPER_PAIRS:
            heads[previous.offset] = instruction.offset
        previous = instruction
    return heads


def reuses_operand(code: CodeType, offset: int) -> bool:
    """True when the float instruction at ``offset`` writes into an operand instead of
    creating a float: 3.12+ and an operand pushed by an instruction that makes a new object
    (so only the stack refers to it)."""
    if not REUSES_FLOAT_OPERANDS:
        return False
    return any(p in _FRESH_PRODUCERS for p in operand_producers(code, offset) if p)


def operand_producers(code: CodeType, offset: int, operands: int = 2) -> list[str | None]:
    """The base names of the instructions that pushed the top ``operands`` stack entries
    consumed by the instruction at ``offset`` (deepest first), found by walking back through
    straight-line code; None where the walk stops (a jump target, an instruction it does not
    know) before the producer."""
    instructions = list(dis.get_instructions(code))
    index = next((i for i, x in enumerate(instructions) if x.offset == offset), None)
    found: list[str | None] = [None] * operands
    if index is None:
        return found
    depths = {slot: slot for slot in range(operands)}  # slot (0 = top) -> depth from the top
    for j in range(index - 1, -1, -1):
        instruction = instructions[j]
        effect = _STACK_EFFECTS.get(base_opname(instruction.opname))
        if effect is None:
            break
        pops, pushes = effect
        for slot, depth in list(depths.items()):
            if depth < pushes:
                found[operands - 1 - slot] = base_opname(instruction.opname)
                del depths[slot]
            else:
                depths[slot] = depth - pushes + pops
        if not depths or instruction.is_jump_target:
            break
    return found


@functools.lru_cache(maxsize=4096)
def _instruction_starts(code: CodeType) -> tuple[int, ...]:
    return tuple(i.offset for i in dis.get_instructions(code))


def instruction_at(code: CodeType, lasti: int) -> int:
    """The offset of the instruction a frame's ``f_lasti`` is in (3.11 leaves it on a call's
    last inline cache entry when the call enters a Python frame)."""
    starts = _instruction_starts(code)
    return starts[max(0, bisect.bisect_right(starts, lasti) - 1)] if starts else lasti


def adaptive_instructions(code: CodeType) -> list[dis.Instruction]:
    try:
        return list(dis.get_instructions(code, adaptive=True))
    except TypeError:  # Python < 3.11 has no adaptive view
        return list(dis.get_instructions(code))


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
        if ins.starts_line not in (None, False):  # an int up to 3.12, a bool from 3.13
            stack.clear()
        op = base_opname(ins.opname)

        def pop(k: int) -> list[str | None]:
            return [stack.pop() if stack else None for _ in range(k)][::-1]

        if op in ("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST_CHECK"):
            stack.append(ins.argval if isinstance(ins.argval, str) else None)
            continue
        if op == "LOAD_FAST_LOAD_FAST":  # 3.13: two locals in one instruction
            names = ins.argval if isinstance(ins.argval, tuple) else (None, None)
            stack.extend(n if isinstance(n, str) else None for n in names)
            continue
        depth = ins.arg or 1
        if op == "COPY":
            stack.append(stack[-depth] if len(stack) >= depth else None)
            continue
        if op == "SWAP":
            if len(stack) >= depth:
                stack[-1], stack[-depth] = stack[-depth], stack[-1]
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


def operand_kind(opname: str, names: list[str | None], local_vars: Mapping[str, object]) -> str:
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
