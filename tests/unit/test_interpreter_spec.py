"""SPEC resolution for ``--python``: a path, a version on PATH, in pyenv's versions folder, or
one line naming where it looked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from overhead_tui.errors import UsageError
from overhead_tui.interpreters import resolve as interpreters
from overhead_tui.interpreters.resolve import describe, resolve_python, this_python
from tests.conftest import refuses_silent_interpreter, run_cli, unrunnable_file


def _fake_python(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No PATH entries, no real pyenv, no system folders: only what a test puts there."""
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PYENV_ROOT", raising=False)
    monkeypatch.setattr(interpreters, "SYSTEM_FOLDERS", (tmp_path / "usr-bin",))
    return tmp_path


def test_a_path_is_taken_as_is(isolated):
    python = _fake_python(isolated / "opt" / "python3")
    assert resolve_python(str(python)) == str(python)
    with pytest.raises(UsageError, match="no executable file"):
        resolve_python(str(isolated / "missing" / "python3"))


def test_a_version_on_path(isolated):
    python = _fake_python(isolated / "bin" / "python3.42")
    assert resolve_python("3.42") == str(python)
    assert resolve_python("python3.42") == str(python)


def test_a_version_in_pyenv_is_the_newest_patch_release(isolated, monkeypatch):
    root = isolated / "pyenv"
    monkeypatch.setenv("PYENV_ROOT", str(root))
    _fake_python(root / "versions" / "3.42.1" / "bin" / "python3.42")
    newest = _fake_python(root / "versions" / "3.42.10" / "bin" / "python3.42")
    _fake_python(root / "versions" / "3.43.0" / "bin" / "python3.43")
    # a pyenv shim on PATH gives way to the interpreter itself
    _fake_python(isolated / "bin" / "shims" / "python3.42")
    monkeypatch.setenv("PATH", str(isolated / "bin" / "shims"))
    assert resolve_python("3.42") == str(newest)


def test_home_pyenv_and_system_folders(isolated, monkeypatch):
    home = _fake_python(isolated / "home" / ".pyenv" / "versions" / "3.41.2" / "bin" / "python3.41")
    assert resolve_python("3.41") == str(home)
    system = _fake_python(isolated / "usr-bin" / "python3.40")
    assert resolve_python("3.40") == str(system)


def test_not_found_names_every_place_looked(isolated):
    with pytest.raises(UsageError) as info:
        resolve_python("3.99")
    message = str(info.value)
    assert "\n" not in message
    assert "PATH (python3.99)" in message and str(isolated / "usr-bin") in message
    assert "fix:" in message


def test_pypy_is_taken_from_path_or_refused_with_where_to_get_one(isolated):
    """PyPy on the interpreter axis: a pypy3 on PATH is used; none is one line saying which
    PyPy the workers need (no download of our own)."""
    with pytest.raises(UsageError, match=r"no PyPy on PATH; fix: install a PyPy of Python 3\.11"):
        resolve_python("pypy3")
    pypy = _fake_python(isolated / "bin" / "pypy3")
    assert resolve_python("pypy3") == str(pypy)


def test_cli_refuses_an_unknown_version_in_one_line(isolated):
    proc = run_cli(
        "interpreters", "--python", "3.99", timeout=120, env={"PATH": str(isolated / "bin")}
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "python3.99" in lines[0] and "Traceback" not in proc.stderr


def test_describe_labels_this_interpreter():
    me = this_python()
    assert me.implementation == "CPython"
    assert me.version == ".".join(map(str, sys.version_info[:3]))
    assert describe(sys.executable).version == me.version
    assert me.free_threaded is False  # this build has the GIL


def test_describe_names_why_a_file_cannot_be_run_and_the_fix(tmp_path):
    junk = unrunnable_file(tmp_path)
    # was: "cannot be run ([Errno 8] Exec format error: '...'); fix: give another"
    with pytest.raises(UsageError) as raised:
        describe(str(junk))
    assert str(raised.value) == (
        f"--python {junk} cannot be run (Exec format error); fix: give the path of a python "
        "executable"
    )


def test_describe_of_a_silent_interpreter_leaves_nothing_behind(tmp_path, monkeypatch):
    monkeypatch.setattr(interpreters, "DESCRIBE_TIMEOUT_S", 0.5)
    refuses_silent_interpreter(tmp_path, describe, r"no answer within 0\.5 s")
