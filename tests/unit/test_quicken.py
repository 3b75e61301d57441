"""A kernel made of while loops is timed in the specialised form the counting phase counts."""

from __future__ import annotations

import dis
import sys
import time

import pytest

from overhead_tui.kit.timing import QUICKEN_CALLS, quicken


def _while_kernel(n):
    s = 0.0
    k = 0
    while k < n:
        s += k * 0.5
        k += 1
    return s


def _wrapper(seconds):  # a compiled rung's kernel: no loop of its own, one long call
    return time.sleep(seconds)


def _adaptive(fn):
    return {i.opname for i in dis.get_instructions(fn, adaptive=True)}


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.11 quickens at the 8th call")
def test_a_while_loop_kernel_is_quickened_before_it_is_timed():
    fn = _while_kernel.__code__.replace()  # a fresh code object, never called
    kernel = type(_while_kernel)(fn, globals())
    kernel(4)
    assert "RESUME_QUICK" not in _adaptive(kernel)  # one long call does not quicken it
    times = quicken(kernel, (4,))
    assert 0 < len(times) <= QUICKEN_CALLS
    assert "RESUME_QUICK" in _adaptive(kernel)
    assert quicken(kernel, (4,)) == []  # already quickened: no more calls


def test_what_is_not_python_code_is_not_called():
    assert quicken(len, ([1],)) == []


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="3.11 quickens at the 8th call")
def test_a_loop_free_wrapper_of_a_long_call_is_not_called_again():
    def clock(step_ns):  # each reading a fixed step after the last: a call lasts one step
        now = [0]

        def read():
            now[0] += step_ns
            return now[0]

        return read

    fresh = type(_wrapper)(_wrapper.__code__.replace(), globals())
    assert len(quicken(fresh, (0.0,), clock(2_000_000))) == 1  # 2 ms a call
    quick = type(_wrapper)(_wrapper.__code__.replace(), globals())
    assert len(quicken(quick, (0.0,), clock(1_000))) == QUICKEN_CALLS  # 1 µs: quickened
