"""The counting phase counts a compiled rung's Python twin where the scenario has one
(``counted_kernel``), and says so in the counts; the twin is its source run as bytecode."""

from __future__ import annotations

from types import SimpleNamespace

from overhead_tui.kit.pybuild import python_twin
from overhead_tui.plugins.scenarios import discover
from overhead_tui.worker.counting.phase import count_phase
from overhead_tui.worker.protocol import worker_task

PYTHON_NAIVE = next(s for s in discover([]) if s.name == "python_naive")
SOURCE = PYTHON_NAIVE.kernel_source  # the ijk loop over lists, as cython_untyped compiles it


def _module(with_twin: bool) -> SimpleNamespace:
    def setup(a, b):
        return a.tolist(), b.tolist()

    def compiled(a, b):  # stands for a compiled kernel: no bytecode of its loop is counted
        return [list(map(float, row)) for row in a]

    module = SimpleNamespace(setup=setup, kernel=compiled)
    if with_twin:
        module.counted_kernel = python_twin("twin_test", SOURCE).kernel
    return module


def _task():
    return worker_task("run", PYTHON_NAIVE, n=64, dtype="float64", seed=0, max_size=512)


def test_the_twin_is_counted_and_marked():
    counted = count_phase(_module(with_twin=True), _task())
    events = counted.per_fma
    assert events is not None and events.python_twin
    assert events.dispatches > 5 and events.floats > 1.5  # the ijk loop's bytecode


def test_without_a_twin_the_timed_kernel_is_counted():
    counted = count_phase(_module(with_twin=False), _task())
    events = counted.per_fma
    assert events is not None and not events.python_twin
    assert events.dispatches < 1  # the stand-in's loop is in C (map)


def test_the_twin_is_made_once_per_source():
    assert python_twin("twin_test", SOURCE) is python_twin("twin_test", SOURCE)
    assert python_twin("twin_test", SOURCE).kernel([[1.0]], [[2.0]]) == [[2.0]]
