"""Builds with the experimental JIT get two columns, ``PYTHON_JIT=1`` (jit on) and
``PYTHON_JIT=0`` (jit off); other builds one.  No local interpreter has the JIT, so the planning
is tested with fake interpreter descriptions."""

from __future__ import annotations

import os
import sys
import sysconfig
import types

import pytest

from overhead_tui.commands.interpreters import _columns
from overhead_tui.interpreters.resolve import (
    JIT_ENV,
    PythonInfo,
    environment,
    plan_columns,
    this_python,
)
from overhead_tui.summary.interpreters import InterpreterRun, Provisioned


def _info(jit):
    return PythonInfo("CPython", "3.14.0", "/opt/py/bin/python3.14", False, jit)


def test_a_build_without_the_jit_gets_one_column_with_its_environment_untouched():
    [column] = plan_columns(_info(None))
    assert column.env == {} and column.info == _info(None)
    assert column.info.label == "CPython 3.14.0"


@pytest.mark.parametrize("default", ["enabled", "disabled"])
def test_a_jit_build_gets_jit_on_then_jit_off(default):
    on, off = plan_columns(_info(default))  # whatever its default, both are run
    assert on.env == {JIT_ENV: "1"} and on.info.jit == "enabled"
    assert off.env == {JIT_ENV: "0"} and off.info.jit == "disabled"
    assert (on.info.label, off.info.label) == ("CPython 3.14.0 jit on", "CPython 3.14.0 jit off")


def test_the_command_makes_one_entry_per_column_sharing_the_environment():
    provision = Provisioned(python="/cache/interpreters/3.14.0-x/bin/python", folder="/cache/x")
    entry = InterpreterRun(python=_info("enabled"), provision=provision)
    columns = _columns(entry)
    assert [(e.label, env) for e, env in columns] == [
        ("CPython 3.14.0 jit on", {"PYTHON_JIT": "1"}),
        ("CPython 3.14.0 jit off", {"PYTHON_JIT": "0"}),
    ]
    assert all(e.provision == provision and e.scenarios == [] for e, _ in columns)
    assert columns[0][0].scenarios is not columns[1][0].scenarios
    plain = InterpreterRun(python=_info(None))
    assert _columns(plain) == [(plain, {})]
    failed = InterpreterRun(python=_info("enabled"), error="cannot install numpy")
    assert _columns(failed) == [(failed, {})]  # one "not run" column, not two


def test_environment_sets_the_variable_for_the_block_only(monkeypatch):
    monkeypatch.delenv(JIT_ENV, raising=False)
    with environment({JIT_ENV: "0"}):
        assert os.environ[JIT_ENV] == "0"
    assert JIT_ENV not in os.environ
    monkeypatch.setenv(JIT_ENV, "1")
    with environment({JIT_ENV: "0"}):
        assert os.environ[JIT_ENV] == "0"
    assert os.environ[JIT_ENV] == "1"


def test_describe_recognises_a_313_jit_build_from_its_cflags(monkeypatch):
    monkeypatch.delattr(sys, "_jit", raising=False)
    real = sysconfig.get_config_var
    monkeypatch.setattr(
        sysconfig,
        "get_config_var",
        lambda name: "-O3 -D_Py_JIT -DPy_BUILD_CORE" if name == "PY_CORE_CFLAGS" else real(name),
    )
    monkeypatch.setenv(JIT_ENV, "0")
    assert this_python().jit == "disabled"
    monkeypatch.setenv(JIT_ENV, "1")
    assert this_python().jit == "enabled"


def test_describe_asks_sys_jit_where_it_exists(monkeypatch):
    fake = types.SimpleNamespace(is_available=lambda: True, is_enabled=lambda: False)
    monkeypatch.setattr(sys, "_jit", fake, raising=False)
    assert this_python().jit == "disabled"
    fake.is_enabled = lambda: True
    assert this_python().jit == "enabled"
    fake.is_available, fake.is_enabled = (lambda: False), (lambda: False)
    assert this_python().jit is None  # built with it, but not usable on this machine


def test_the_probe_cache_key_tells_jit_on_from_off(monkeypatch):
    from overhead_tui.engine.probe_runs import cache_key

    monkeypatch.delenv(JIT_ENV, raising=False)
    plain = cache_key([], sys.executable)
    monkeypatch.setenv(JIT_ENV, "1")
    on = cache_key([], sys.executable)
    monkeypatch.setenv(JIT_ENV, "0")
    off = cache_key([], sys.executable)
    assert len({plain, on, off}) == 3
