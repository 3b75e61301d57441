"""Every path the package builds to its own files exists, and a missing one is an error.

The worker's move to ``worker/`` left two stale paths that nothing noticed: Scalene's target
(``engine/worker.py``: Scalene then "recorded no time") and the probe cache key's helpers
(skipped when missing: a change to the measuring code no longer re-measured the probes).
Here each kind of path is collected from the code itself and checked.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from importlib import resources
from pathlib import Path

import pytest

import overhead_tui
from overhead_tui.engine import probe_runs
from overhead_tui.engine.package import package_dir, package_file
from overhead_tui.errors import MissingPackageFile
from overhead_tui.plugins.probes import builtin_probes_dir
from overhead_tui.plugins.scenarios import builtin_scenarios_dir
from overhead_tui.profilers import scalene

PACKAGE = package_dir()


def _modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(overhead_tui.__path__, "overhead_tui.")]


def test_the_scalene_target_is_the_worker_entry():
    entry = package_file(scalene.WORKER_ENTRY)
    assert entry == PACKAGE / "worker" / "__main__.py"
    assert "from overhead_tui.worker.main import main" in entry.read_text()


def test_the_probe_cache_key_hashes_the_measuring_code_that_exists():
    files = probe_runs.probe_code_files()
    assert all(path.is_file() for path in files)
    names = {path.relative_to(PACKAGE).as_posix() for path in files}
    for helper in ("probing.py", "simd.py", "timing.py", "cbuild.py", "chains.py"):
        assert f"kit/{helper}" in names
    assert "worker/main.py" in names and "worker/counting/opcodes.py" in names
    assert "api.py" in names


def test_a_change_to_a_probe_helper_changes_the_probe_cache_key(monkeypatch, tmp_path):
    specs = probe_runs.discover_probes()
    before = probe_runs.cache_key(specs, "python3")
    changed = tmp_path / "probing.py"
    changed.write_text(
        (PACKAGE / "kit" / "probing.py").read_text() + "\n# changed\n", encoding="utf-8"
    )
    real = probe_runs.probe_code_files

    def with_change():
        return [changed if p.name == "probing.py" else p for p in real()]

    monkeypatch.setattr(probe_runs, "probe_code_files", with_change)
    assert probe_runs.cache_key(specs, "python3") != before


def test_a_missing_module_is_an_error_naming_it_and_the_fix():
    with pytest.raises(MissingPackageFile, match=r"overhead_tui\.engine\.worker is not in .*fix"):
        package_file("overhead_tui.engine.worker")
    with pytest.raises(MissingPackageFile, match=r"overhead_tui\.nothing\.here"):
        package_file("overhead_tui.nothing.here")


def test_every_stylesheet_a_screen_or_the_app_names_exists():
    from textual.app import App
    from textual.screen import Screen

    from overhead_tui.tui.screens.base import BASE_TCSS

    assert BASE_TCSS.is_file()
    checked = 0
    for name in _modules():
        if not name.startswith("overhead_tui.tui"):
            continue
        module = importlib.import_module(name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if not issubclass(cls, Screen | App) or cls.__module__ != name:
                continue
            paths = cls.CSS_PATH if isinstance(cls.CSS_PATH, list) else [cls.CSS_PATH]
            for css in filter(None, paths):
                path = Path(inspect.getfile(cls)).parent / str(css)
                assert path.is_file(), f"{cls.__qualname__}.CSS_PATH: {path} is missing"
                checked += 1
    assert checked >= 10  # the collection found the screens at all


def test_every_data_file_read_through_importlib_resources_exists():
    found = []  # (the package resources.files names, the path joined to it)
    pattern = r'resources\.files\(([^)]+)\)\.joinpath\("([^"]+)"\)'
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = module.rsplit(".", 1)[0]
        for anchor, relative in re.findall(pattern, path.read_text(encoding="utf-8")):
            found.append((package if anchor == "__package__" else anchor.strip("\"'"), relative))
    assert len(found) >= 3, "the collection found no resource paths"
    for anchor, relative in found:
        assert resources.files(anchor).joinpath(relative).is_file(), (anchor, relative)


def test_the_builtin_scenario_and_probe_folders_exist():
    assert any(builtin_scenarios_dir().glob("*.py"))
    assert any(builtin_probes_dir().glob("*.py"))


def test_no_module_builds_a_path_from_its_own_file_but_the_checked_ones():
    """A path built from ``__file__`` by hand can go stale when a module moves: only the places
    this file checks may do it (a new one resolves through ``package_file`` or is added here)."""
    checked = {
        "engine/package.py",  # package_dir: the package folder itself
        "tui/screens/base.py",  # BASE_TCSS (test_every_stylesheet...)
        "plugins/scenarios.py",  # builtin_scenarios_dir (test_the_builtin_...)
        "plugins/probes.py",  # builtin_probes_dir
    }
    users = set()
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "__file__"]
        if own:
            users.add(path.relative_to(PACKAGE).as_posix())
    assert users <= checked, users - checked


def test_the_probe_cache_key_follows_the_cpus_the_run_may_use(monkeypatch):
    """A run under ``taskset -c 0`` or a CPU quota measures its own all-cores figures: the
    affinity mask and the quota are part of the key (recorded ones here, not this host's)."""
    from overhead_tui.machine import cgroup
    from overhead_tui.plugins.probes import discover_probes

    class Process:  # psutil.Process with a recorded affinity mask
        def __init__(self, cpus):
            self.cpus = cpus

        def cpu_affinity(self):
            return self.cpus

    specs = discover_probes()
    monkeypatch.setattr(cgroup.psutil, "Process", lambda: Process([0, 1]))
    monkeypatch.setattr(cgroup, "cgroup_cpu_quota", lambda: None)
    both = probe_runs.cache_key(specs, "python3")
    assert cgroup.cpus_seen() == "cpus=[0, 1] quota=None"
    monkeypatch.setattr(cgroup.psutil, "Process", lambda: Process([0]))
    one = probe_runs.cache_key(specs, "python3")
    monkeypatch.setattr(cgroup, "cgroup_cpu_quota", lambda: 1.0)
    quota = probe_runs.cache_key(specs, "python3")
    assert cgroup.cpus_seen() == "cpus=[0] quota=1.0"
    assert len({both, one, quota}) == 3
    monkeypatch.setattr(cgroup.psutil, "Process", lambda: Process([0, 1]))
    monkeypatch.setattr(cgroup, "cgroup_cpu_quota", lambda: None)
    assert probe_runs.cache_key(specs, "python3") == both  # the same CPUs: the same key
