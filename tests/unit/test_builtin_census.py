"""Work builtins do in C is counted: the builtin functions ``map`` calls, the floats they make;
and the example kernels of ``examples/kernels`` are valid scenarios that compute A·B."""

from __future__ import annotations

import builtins
import operator
from pathlib import Path

import numpy as np
import pytest

from overhead_tui.plugins.scenarios import discover
from overhead_tui.worker.counting.builtin_census import c_level_calls

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "kernels"


def _sum_map(a, bt):
    return [[sum(map(operator.mul, row, col)) for col in bt] for row in a]


def test_map_calling_a_builtin_counts_one_c_call_and_one_float_per_item():
    a = [[1.5] * 6 for _ in range(6)]
    assert c_level_calls(_sum_map, (a, a)) == (216, 216)


def test_what_the_profile_sees_or_nothing_is_made_is_not_counted_here():
    xs = [1.5, 2.5, 3.5]

    # a Python function: its calls are profile events already
    def double(v):
        return v * 2

    assert c_level_calls(lambda x: sum(map(double, x)), (xs,)) == (0, 0)
    # a builtin returning its argument makes no float; an iterator has no length to read
    assert c_level_calls(lambda x: sum(map(operator.pos, x)), (xs,)) == (3, 0)
    assert c_level_calls(lambda x: sum(map(operator.mul, iter(x), x)), (xs,)) == (0, 0)


def test_the_real_map_is_back_after_the_count_even_when_the_kernel_fails():
    real = builtins.map
    with pytest.raises(ZeroDivisionError):
        c_level_calls(lambda: 1 / 0, ())
    assert builtins.map is real


def _load(path: Path):
    """The file as the worker imports it (its default setup and to_numpy included)."""
    from overhead_tui.worker.main import import_scenario

    return import_scenario(str(path), path.stem)


def test_the_example_kernels_are_scenarios_that_multiply_matrices():
    found = {s.name: s for s in discover([EXAMPLES], include_builtin=False)}
    assert set(found) == {
        "user_while_indices",
        "user_sum_map_mul",
        "user_numpy_per_row",
        "user_numpy_dot_per_element",
    }
    rng = np.random.default_rng(0)
    a, b = rng.random((9, 9)), rng.random((9, 9))
    for path in sorted(EXAMPLES.glob("*.py")):
        module = _load(path)
        args = module.setup(a.copy(), b.copy())
        c = module.to_numpy(module.kernel(*args))
        assert np.allclose(c, a @ b), path.name
