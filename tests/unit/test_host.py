"""Host facts read through psutil: CPU times with steal, other processes' load, memory, and
the worker kept free of psutil."""

from __future__ import annotations

import ast
import importlib.util
from collections import namedtuple
from pathlib import Path

import pytest

from overhead_tui.machine import host
from overhead_tui.machine.cgroup import affinity_cpus

# /proc/stat's first line, in seconds, as psutil gives it on Linux
LinuxTimes = namedtuple(
    "LinuxTimes",
    "user nice system idle iowait irq softirq steal guest guest_nice",
)
MacTimes = namedtuple("MacTimes", "user nice system idle")


def _reading(monkeypatch, times):
    monkeypatch.setattr(host.psutil, "cpu_times", lambda: times)
    return host.read_cpu_times()


def test_cpu_times_count_guest_time_once_and_steal_apart(monkeypatch):
    reading = _reading(monkeypatch, LinuxTimes(50, 5, 20, 100, 10, 1, 2, 12, 30, 3))
    assert reading is not None
    assert reading.total == 200  # guest and guest_nice are inside user and nice already
    assert reading.steal == 12
    assert reading.busy == 200 - 100 - 10 - 12


def test_steal_and_other_processes_between_two_readings(monkeypatch):
    before = _reading(monkeypatch, LinuxTimes(50, 0, 20, 100, 0, 0, 0, 10, 0, 0))
    after = _reading(monkeypatch, LinuxTimes(90, 0, 30, 140, 0, 0, 0, 20, 0, 0))
    # 100 s of CPU time passed: 10 stolen, 50 busy, of which the worker used 20
    assert host.steal_fraction(before, after) == pytest.approx(0.1)
    assert host.other_cpu_fraction(before, after, own_cpu_s=20.0) == pytest.approx(0.3)
    assert host.other_cpu_fraction(before, after, own_cpu_s=80.0) == 0.0
    assert host.steal_fraction(after, after) is None  # no time passed
    assert host.steal_fraction(None, after) is None


def test_a_system_without_steal_has_no_steal_fraction_but_a_load(monkeypatch):
    before = _reading(monkeypatch, MacTimes(10, 0, 10, 80))
    after = _reading(monkeypatch, MacTimes(30, 0, 10, 160))
    assert host.steal_fraction(before, after) is None
    assert host.other_cpu_fraction(before, after, own_cpu_s=10.0) == pytest.approx(0.1)


def test_unreadable_cpu_times_are_none(monkeypatch):
    def fail():
        raise PermissionError("/proc/stat")

    monkeypatch.setattr(host.psutil, "cpu_times", fail)
    assert host.read_cpu_times() is None


def test_this_machines_facts_are_plausible():
    reading = host.read_cpu_times()
    assert reading is not None and 0 <= reading.busy <= reading.total
    memory = host.available_memory_bytes()
    assert memory is not None and memory > 0
    assert 1 <= affinity_cpus() <= (host.describe_machine().logical_cpus or 1)


def _external_imports(module: str, seen: set[str]) -> set[str]:
    """Top-level packages ``module`` and the package modules it imports (at any depth of their
    code) import."""
    if module in seen:
        return set()
    seen.add(module)
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
            if node.module.startswith("overhead_tui"):
                names += [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            if name.startswith("overhead_tui"):
                if importlib.util.find_spec(name.rsplit(".", 1)[0]) and _is_module(name):
                    found |= _external_imports(name, seen)
            else:
                found.add(name.split(".")[0])
    return found


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize(
    "module", ["overhead_tui.worker.main", "overhead_tui.api", "overhead_tui.kit.cbuild"]
)
def test_the_worker_side_imports_no_tool_only_package(module):
    """The worker may run under another interpreter with only numpy and threadpoolctl (and the
    scenarios' own optional packages, such as cffi)."""
    imported = _external_imports(module, set())
    assert not {"psutil", "msgspec", "rich", "textual", "jsonschema", "setuptools"} & imported
