"""The exact event counter against loops whose counts are known from their disassembly."""

from __future__ import annotations

import dis
from itertools import repeat

import numpy as np
import pytest

from overhead_tui.worker.counting.instructions import RUNTIME_SUPERINSTRUCTIONS, base_opname
from overhead_tui.worker.counting.opcodes import count_events
from overhead_tui.worker.counting.scaling import extrapolate


def _loop(n, x, z):
    y = None
    for _ in repeat(None, n):
        y = x * z
    return y


def _calls(n, f):
    for _ in repeat(None, n):
        f()


def _empty():
    return None


def _loop_body_instructions():
    """The instructions between FOR_ITER and JUMP_BACKWARD (inclusive) of ``_loop``."""
    ops = [i.opname for i in dis.get_instructions(_loop) if i.opname != "CACHE"]
    start = ops.index("FOR_ITER")
    end = max(i for i, op in enumerate(ops) if op.startswith("JUMP_BACKWARD"))
    return end - start + 1


def test_bytecodes_grow_by_the_loop_body_per_trip():
    per_trip = _loop_body_instructions()
    small = count_events(_loop, (100, 1.5, 2.5))
    large = count_events(_loop, (300, 1.5, 2.5))
    assert large.bytecodes - small.bytecodes == 200 * per_trip
    # the same counts on every repetition: exact, not sampled
    assert count_events(_loop, (100, 1.5, 2.5)).bytecodes == small.bytecodes


def test_specialised_names_and_float_creations_are_exact():
    counts = count_events(_loop, (1000, 1.5, 2.5))
    assert counts.by_opcode.get("BINARY_OP_MULTIPLY_FLOAT") == 1000
    assert counts.floats == 1000
    ints = count_events(_loop, (1000, 3, 5))
    assert ints.floats == 0 and "BINARY_OP_MULTIPLY_FLOAT" not in ints.by_opcode


def test_overlapping_superinstructions_dispatch_as_executed():
    """``STORE_FAST _; LOAD_FAST x; LOAD_FAST z`` holds two overlapping superinstruction pairs
    on 3.11/3.12 but dispatches twice (``_+x``, then ``z``): one fewer dispatch per trip than
    instructions, not two (the fault: every executed pair head was subtracted)."""
    small = count_events(_loop, (1000, 1.5, 2.5))
    large = count_events(_loop, (2000, 1.5, 2.5))
    per_trip = _loop_body_instructions()
    assert (large.bytecodes - small.bytecodes) / 1000 == per_trip
    fused = 1 if RUNTIME_SUPERINSTRUCTIONS else 0
    assert (large.dispatches - small.dispatches) / 1000 == per_trip - fused


def test_base_names_fold_specialised_instrumented_and_super_names():
    assert base_opname("BINARY_OP_MULTIPLY_FLOAT") == "BINARY_OP"
    assert base_opname("BINARY_SUBSCR_LIST_INT") == "BINARY_SUBSCR"
    assert base_opname("LOAD_FAST") == "LOAD_FAST"
    counts = count_events(_loop, (100, 1.5, 2.5))
    assert sum(counts.by_base_opcode.values()) == counts.bytecodes
    assert counts.by_base_opcode["BINARY_OP"] == 100


def test_python_and_builtin_calls():
    counts = count_events(_calls, (250, _empty))
    assert counts.python_calls == 250
    builtins = count_events(lambda n: [len("ab") for _ in range(n)], (40,))
    assert builtins.builtin_calls == 40  # len; range() is a type call, not a c_call event
    numpy = count_events(lambda: [np.zeros(2) for _ in range(7)], ())
    assert numpy.numpy_calls == 7


def test_cubic_extrapolation_is_exact_for_matmul_counts():
    def count(n):
        return 17 * n**3 + 5 * n**2 + 3 * n + 11

    sizes = [8, 12, 16, 20]
    assert extrapolate(sizes, [count(s) for s in sizes], 512) == pytest.approx(count(512))
    with pytest.raises(ValueError, match="four sizes"):
        extrapolate([8, 12], [1, 2], 100)
