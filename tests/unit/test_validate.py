from __future__ import annotations

import numpy as np
import pytest

from overhead_tui.worker.inputs import make_inputs
from overhead_tui.worker.validate import validate


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_correct_results_pass_in_any_summation_order(dtype):
    a, b = make_inputs(64, dtype, seed=3)
    assert validate(a @ b, a, b, dtype).ok
    # a different summation order (reversed k) still passes: the bound is order-independent
    reversed_sum = sum(np.outer(a[:, k], b[k]) for k in reversed(range(64))).astype(dtype)
    assert validate(reversed_sum, a, b, dtype).ok


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_wrong_element_is_invalid(dtype):
    a, b = make_inputs(32, dtype, seed=1)
    c = (a @ b).astype(np.float64)
    c[3, 4] += 1e-2
    check = validate(c, a, b, dtype)
    assert not check.ok
    assert check.max_abs_error == pytest.approx(1e-2, rel=1e-2)
    assert "(3, 4)" in check.reason


def test_float32_result_fails_the_float64_tolerance():
    a, b = make_inputs(64, "float64", seed=2)
    c32 = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float64)
    assert validate(c32, a, b, "float64").ok is False
    assert validate(c32, a, b, "float32").ok is True


@pytest.mark.parametrize(
    ("result", "reason"),
    [(np.zeros((3, 3)), "shape"), ("abc", "not numeric"), (np.full((4, 4), np.nan), "NaN")],
)
def test_malformed_results(result, reason):
    a, b = make_inputs(4, "float64", seed=0)
    check = validate(result, a, b, "float64")
    assert not check.ok
    assert reason in check.reason


def test_inputs_are_seeded_and_shared_across_dtypes():
    a1, b1 = make_inputs(16, "float64", 7)
    a2, _ = make_inputs(16, "float64", 7)
    a3, _ = make_inputs(16, "float64", 8)
    a32, _ = make_inputs(16, "float32", 7)
    assert np.array_equal(a1, a2) and not np.array_equal(a1, a3)
    assert a32.dtype == np.float32 and np.allclose(a32, a1, atol=1e-7)
    assert a1.flags.c_contiguous and b1.shape == (16, 16)
