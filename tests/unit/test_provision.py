"""Per-interpreter environments: made once, reused from the stamp (no second pip call),
the nearest version recorded, a missing optional package kept apart, and a clean one-line
refusal when nothing can be installed (no network: an empty local index)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from overhead_tui.interpreters.provision import ProvisionError, provision, venv_python

WANTED = {"numpy": "2.4.6", "threadpoolctl": "3.8.0", "numba": "0.68.1"}


class FakeRun:
    """Stands in for subprocess.run: makes venvs, lets pip fail for named pins."""

    def __init__(self, failing=(), have=None):
        self.calls: list[list[str]] = []
        self.failing = set(failing)
        self.have = dict(have or {})

    def __call__(self, argv, **kwargs):
        self.calls.append(list(argv))
        if argv[1:3] == ["-m", "venv"]:
            python = venv_python(__import__("pathlib").Path(argv[-1]))
            python.parent.mkdir(parents=True, exist_ok=True)
            python.write_text("")
            return subprocess.CompletedProcess(argv, 0, "", "")
        if argv[1:4] == ["-m", "pip", "install"]:
            pins = [a for a in argv[4:] if not a.startswith("-") and a != ":all:" and a != "1"]
            if any(p in self.failing for p in pins):
                return subprocess.CompletedProcess(argv, 1, "", "ERROR: No matching distribution")
            for pin in pins:
                name, _, version = pin.partition("==")
                self.have[name] = version or self.have.get(name, "9.9")
            return subprocess.CompletedProcess(argv, 0, "", "")
        if argv[1] == "-c":  # installed versions
            return subprocess.CompletedProcess(argv, 0, json.dumps(self.have) + "\n", "")
        raise AssertionError(argv)

    @property
    def pip_calls(self):
        return [c for c in self.calls if c[1:3] == ["-m", "pip"]]


def test_made_once_then_reused_from_the_stamp(tmp_path):
    notes: list[str] = []
    run = FakeRun()
    first = provision("/usr/bin/python3.12", "3.12.1", notes.append, run, tmp_path, WANTED)
    assert not first.reused and first.installed == WANTED
    assert len(run.pip_calls) == 1 and any("creating the environment" in n for n in notes)
    assert (tmp_path / "interpreters").is_dir()
    again = FakeRun()
    second = provision("/usr/bin/python3.12", "3.12.1", notes.append, again, tmp_path, WANTED)
    assert second.reused and again.calls == []  # no pip, no venv: the stamp said it is ready
    assert second.python == first.python and second.installed == first.installed
    # another tool version wanted: made again
    newer = dict(WANTED, numpy="2.5.0")
    third = FakeRun()
    provision("/usr/bin/python3.12", "3.12.1", notes.append, third, tmp_path, newer)
    assert third.pip_calls


def test_nearest_version_and_missing_optional_package_are_recorded(tmp_path):
    run = FakeRun(failing={"numpy==2.4.6", "numba==0.68.1", "numba"}, have={"numpy": "2.3.0"})
    notes: list[str] = []
    env = provision("/usr/bin/python3.13", "3.13.0", notes.append, run, tmp_path, WANTED)
    assert env.nearest == {"numpy": "2.4.6"} and env.installed["numpy"] != "2.4.6"
    assert "numba" in env.missing and "No matching distribution" in env.missing["numba"]
    assert any("numba" in n and "skipped" in n for n in notes)
    reused = provision("/usr/bin/python3.13", "3.13.0", notes.append, FakeRun(), tmp_path, WANTED)
    assert reused.reused and reused.missing == env.missing and reused.nearest == env.nearest


def test_required_package_missing_is_one_line(tmp_path):
    run = FakeRun(
        failing={"threadpoolctl==3.8.0", "threadpoolctl", *[f"{k}=={v}" for k, v in WANTED.items()]}
    )
    with pytest.raises(ProvisionError) as info:
        provision("/usr/bin/python3.12", "3.12.1", lambda t: None, run, tmp_path, WANTED)
    assert "\n" not in str(info.value) and "threadpoolctl" in str(info.value)


@pytest.mark.slow  # a real venv and pip: not in `make test-fast`
def test_refused_cleanly_without_an_index(tmp_path, monkeypatch):
    """A real venv and a real pip, with no index and an empty wheel folder (no network)."""
    empty = tmp_path / "wheels"
    empty.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(empty))
    monkeypatch.delenv("PIP_CONSTRAINT", raising=False)
    version = ".".join(map(str, sys.version_info[:3]))
    with pytest.raises(ProvisionError) as info:
        provision(
            sys.executable,
            version,
            base=tmp_path,
            wanted={"numpy": "2.4.6", "threadpoolctl": "3.8.0"},
        )
    message = str(info.value)
    assert "\n" not in message and "numpy" in message and "fix:" in message
