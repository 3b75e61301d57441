"""Scenarios that copy another's code on purpose stay copies of it.

A rung that asks "what does this tool, or these flags, do to the same code?" (Cython and
Nuitka on python_naive's loop, -O0 against -O2, Eigen at default and native flags, numba's
prange) is only an answer while its code is the other's; these pins fail the day one side
changes without the other.  They are the duplicates the tree keeps deliberately.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _module(name: str) -> tuple[str, ast.Module]:
    text = (SCENARIOS / f"{name}.py").read_text(encoding="utf-8")
    return text, ast.parse(text)


def _constant(name: str, variable: str) -> str:
    """The string a scenario file assigns to ``variable`` (its SOURCE)."""
    _, tree = _module(name)
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == [variable]:
            assert isinstance(node.value, ast.Constant), (name, variable)
            return str(node.value.value)
    raise AssertionError(f"{name}.py assigns no {variable}")


def _function(name: str, function: str) -> str:
    """The source text of a top-level function of a scenario file, without decorators."""
    text, tree = _module(name)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            lines = text.splitlines()[node.lineno - 1 : node.end_lineno]
            return "\n".join(lines)
    raise AssertionError(f"{name}.py defines no {function}")


def _renamed(source: str, names: dict[str, str]) -> str:
    """``source`` with each name (a whole identifier) or other text replaced."""
    for old, new in names.items():
        if old.isidentifier():
            source = re.sub(rf"\b{old}\b", new, source)
        else:
            source = source.replace(old, new)
    return source


COPIES = {
    "cython_untyped compiles python_naive's kernel": (
        lambda: _constant("cython_untyped", "SOURCE").strip(),
        lambda: _function("python_naive", "kernel"),
    ),
    "nuitka_naive compiles python_naive's kernel": (
        lambda: _constant("nuitka_naive", "SOURCE").strip(),
        lambda: _function("python_naive", "kernel"),
    ),
    "c_naive_O0 is c_naive_O2's source at -O0": (
        lambda: _constant("c_naive_O0", "SOURCE"),
        lambda: _constant("c_naive_O2", "SOURCE"),
    ),
    "cpp_eigen_native is cpp_eigen's source at native flags": (
        lambda: _constant("cpp_eigen_native", "SOURCE"),
        lambda: _constant("cpp_eigen", "SOURCE"),
    ),
    "numba_parallel is numba_ikj's loop with prange": (
        lambda: _function("numba_parallel", "_matmul_ikj_parallel"),
        lambda: _renamed(
            _function("numba_ikj", "_matmul_ikj"),
            {"_matmul_ikj": "_matmul_ikj_parallel", "range(n)": "prange(n)"},
        ),
    ),
}


@pytest.mark.parametrize("copy, original", COPIES.values(), ids=COPIES.keys())
def test_a_deliberate_copy_is_still_the_code_it_copies(copy, original):
    assert copy() == original()


def test_a_pin_fails_when_the_copy_drifts():
    """The pins compare text: one changed character on one side fails them."""
    copy, original = COPIES["c_naive_O0 is c_naive_O2's source at -O0"]
    assert copy() == original()
    drifted = original().replace("s += a", "s -= a")
    assert copy() != drifted
    assert _renamed("for i in range(n):", {"range(n)": "prange(n)"}) == "for i in prange(n):"
