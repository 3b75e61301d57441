"""A kernel made of while loops is timed in the specialised form the counting phase counts."""

from __future__ import annotations

import dis
import sys

import pytest

from overhead_tui.kit.timing import QUICKEN_CALLS, quicken


def _while_kernel(n):
    s = 0.0
    k = 0
    while k < n:
        s += k * 0.5
        k += 1
    return s


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
