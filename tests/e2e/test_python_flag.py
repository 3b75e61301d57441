"""``--python``: the interpreter is checked, resolved, used by every worker and verified."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from overhead_tui.engine import spawn
from overhead_tui.engine.runner import Runner
from overhead_tui.errors import UsageError
from overhead_tui.interpreters.check import verified_python
from overhead_tui.plugins.scenarios import discover
from overhead_tui.plugins.selection import select
from overhead_tui.summary.records import RunSummary, Settings
from tests.conftest import (
    FAST,
    child_gone,
    refuses_silent_interpreter,
    silent_interpreter,
    unrunnable_file,
    wait_until,
)


def pyenv_root() -> Path | None:
    """pyenv's root folder (``pyenv root``), or None without pyenv."""
    if shutil.which("pyenv"):
        proc = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False)
        if proc.returncode == 0 and proc.stdout.strip():
            return Path(proc.stdout.strip())
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    return root if root.is_dir() else None


def pyenv_version(prefix: str) -> Path | None:
    """The newest pyenv-installed version folder whose name starts with ``prefix``."""
    root = pyenv_root()
    if root is None:
        return None
    found = [p for p in (root / "versions").glob(f"{prefix}*") if (p / "bin" / "python3").is_file()]
    return max(
        found, key=lambda p: tuple(int(x) for x in p.name.split(".") if x.isdigit()), default=None
    )


@pytest.fixture(scope="session")
def venv312(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv of pyenv's CPython 3.12 with numpy and threadpoolctl (once per test session)."""
    version = pyenv_version("3.12.")
    if version is None:
        pytest.skip("no CPython 3.12 under pyenv (`pyenv root`/versions/3.12.*/bin/python3)")
    venv = tmp_path_factory.mktemp("py312") / "venv"
    uv = Path(sys.executable).parent / "uv"  # make's installer: seconds where pip takes ten
    if uv.exists():
        subprocess.run([uv, "venv", "-q", "--python", version / "bin" / "python3", venv],
                       check=True, timeout=120)  # fmt: skip
        install = [uv, "pip", "install", "-q", "--python", venv / "bin" / "python"]
    else:
        subprocess.run([version / "bin" / "python3", "-m", "venv", venv], check=True, timeout=120)
        install = [venv / "bin" / "python", "-m", "pip", "install", "-q"]
    pip = subprocess.run(
        [*install, "numpy", "threadpoolctl"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if pip.returncode != 0:
        tail = (pip.stderr.strip().splitlines() or ["?"])[-1]
        pytest.skip(f"pip could not install numpy into the 3.12 venv (no network?): {tail}")
    return venv / "bin" / "python"


def one_line_exit_2(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert message in proc.stderr


def test_echo_is_not_a_python(cli):
    # echo repeats its arguments, the script included: the check value must be computed
    proc = cli("run", "--python", "/bin/echo", "--scenario", "python_naive", *FAST)
    one_line_exit_2(proc, "/bin/echo is not a Python interpreter")


def test_a_program_printing_the_check_line_is_not_a_python(cli, tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'overhead-tui-check {\"check\": 42}'\n")
    fake.chmod(0o755)
    proc = cli("run", "--python", fake, "--scenario", "python_naive", *FAST)
    one_line_exit_2(proc, "is not a Python interpreter")


def test_missing_interpreter_path_exits_2(cli, tmp_path):
    proc = cli("run", "--python", tmp_path / "no" / "python3", "--scenario", "python_naive", *FAST)
    one_line_exit_2(proc, "no such executable")


def test_a_venv_python_is_kept_as_is_not_resolved_to_its_base():
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a venv")
    assert os.path.realpath(sys.executable) != sys.executable  # a symlink to the base python
    assert verified_python(sys.executable) == sys.executable


def test_a_name_on_path_resolves_to_the_interpreter_it_starts(tmp_path, monkeypatch):
    if sys.prefix == sys.base_prefix:
        pytest.skip("the tests do not run in a venv")
    shim = tmp_path / "bin" / "python3.99"  # like a pyenv shim: a script that execs python
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim.parent}{os.pathsep}{os.environ['PATH']}")
    assert verified_python("python3.99") == sys.executable


def test_pyenv_shim_resolves_to_the_real_interpreter(monkeypatch):
    version = pyenv_version("3.12.")
    root = pyenv_root()
    if version is None or root is None or not (root / "shims" / "python3.12").exists():
        pytest.skip("no pyenv shim python3.12 with CPython 3.12 installed")
    monkeypatch.setenv("PYENV_VERSION", version.name)
    real = os.path.realpath(version / "bin" / "python3.12")
    try:
        assert verified_python(str(root / "shims" / "python3.12")) == real
    except UsageError as exc:  # the base interpreter may lack numpy: the fix names the real one
        assert f"fix: {real} -m pip install numpy threadpoolctl" in str(exc)


def test_pyenv_shim_of_an_unselected_version_says_so(monkeypatch):
    root = pyenv_root()
    version = pyenv_version("3.12.")
    others = [p.name for p in (root / "versions").iterdir()] if root else []
    other = next((v for v in others if not v.startswith("3.12")), None)
    if version is None or other is None or not (root / "shims" / "python3.12").exists():
        pytest.skip("needs pyenv with CPython 3.12 and another version")
    monkeypatch.setenv("PYENV_VERSION", other)
    with pytest.raises(UsageError, match="is a pyenv shim") as info:
        shim = "python3.12" if shutil.which("python3.12") else str(root / "shims/python3.12")
        verified_python(shim)
    assert str(version / "bin" / "python3.12") in str(info.value)
    assert "\n" not in str(info.value)
    monkeypatch.setenv("PYENV_VERSION", "3.12.999")
    with pytest.raises(UsageError, match=r"pyenv says: version `3\.12\.999' is not installed"):
        verified_python(str(root / "shims" / "python3.12"))


def test_workers_path_holds_only_this_package(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    env = spawn.worker_env()
    folder = Path(env["PYTHONPATH"].split(os.pathsep)[0])
    assert [p.name for p in folder.iterdir()] == ["overhead_tui"]
    assert (folder / "overhead_tui").resolve() == spawn.package_dir()
    assert folder != spawn.package_dir().parent
    assert spawn.worker_path_dir() == folder  # reused


def test_tools_site_packages_do_not_leak_into_another_interpreter(tmp_path, monkeypatch):
    """As from an installed wheel: the package's parent folder is the tool's site-packages,
    whose numpy a bare venv of the same version must not see."""
    site = tmp_path / "site-packages"
    (site / "overhead_tui").mkdir(parents=True)
    (site / "overhead_tui" / "__init__.py").write_text("")
    (site / "numpy.py").write_text("")  # the tool's numpy and threadpoolctl
    (site / "threadpoolctl.py").write_text("")
    monkeypatch.setattr(spawn, "package_dir", lambda: site / "overhead_tui")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True)
    with pytest.raises(UsageError, match="cannot import numpy and threadpoolctl") as info:
        verified_python(str(bare / "bin" / "python"))
    assert f"fix: {bare / 'bin' / 'python'} -m pip install numpy threadpoolctl" in str(info.value)


def test_a_worker_on_another_interpreter_is_stopped_with_a_reason(tmp_path):
    wrapper = tmp_path / "python"  # starts this interpreter, which reports its own path
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    wrapper.chmod(0o755)
    settings = Settings(size=8, repeats=2, min_sample_s=0.001, probes=False, python=str(wrapper))
    runner = Runner(select(discover(), ["python_naive"]), settings, tmp_path / "run")
    for _ in runner.events():
        pass
    result = RunSummary.load(tmp_path / "run").scenario("python_naive")
    assert result.status == "error"
    assert f"not on the requested {wrapper}" in (result.error or "")
    assert result.median_s is None


def test_same_interpreter_tells_a_venv_from_its_base(tmp_path):
    base = os.path.realpath(sys.executable)
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = x\n")
    (venv / "bin" / "python").symlink_to(base)
    link = tmp_path / "bin" / "python3"
    link.parent.mkdir()
    link.symlink_to(base)
    assert spawn.same_interpreter(str(venv / "bin" / "python"), str(venv / "bin" / "python"))
    assert not spawn.same_interpreter(str(venv / "bin" / "python"), base)
    assert spawn.same_interpreter(str(link), base)  # one file, no venv: the same


@pytest.mark.slow
def test_run_on_a_python_312_venv_records_312(cli, venv312, tmp_path):
    assert verified_python(str(venv312)) == str(venv312)  # a venv: not resolved to its base
    out = tmp_path / "run"
    proc = cli("run", "--python", venv312, "--scenario", "python_naive", *FAST, "--out", out)
    assert proc.returncode == 0, proc.stderr
    summary = RunSummary.load(out)
    assert summary.machine.python.version.startswith("3.12")
    assert summary.machine.python.executable == str(venv312)
    assert summary.settings.python == str(venv312)
    result = summary.scenario("python_naive")
    assert result.status == "ok"
    assert result.events_per_fma and result.events_per_fma.bytecodes > 0  # sys.monitoring


def test_another_venv_of_the_same_binary_does_not_get_this_numpy(tmp_path):
    """Before the first worker reports, the machine line shows this process's numpy only
    when the workers run on this interpreter with its packages."""
    from overhead_tui.engine.plan import planned_summary

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = x\n")
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    specs = select(discover(), ["python_naive"])
    other = planned_summary(specs, Settings(python=str(venv / "bin" / "python")))
    assert other.machine.numpy_version is None
    assert planned_summary(specs, Settings(python=sys.executable)).machine.numpy_version


def test_an_interpreter_that_never_answers_leaves_nothing_behind(tmp_path, monkeypatch):
    # the check is killed with everything the candidate started (was: a `sleep` left running)
    import overhead_tui.interpreters.check as interpreter_check

    monkeypatch.setattr(interpreter_check, "CHECK_TIMEOUT_S", 0.5)
    refuses_silent_interpreter(tmp_path, verified_python, r"did not answer within 0\.5 s; fix: ")


def test_a_file_that_cannot_be_executed_is_named_with_the_reason(tmp_path):
    junk = unrunnable_file(tmp_path)
    with pytest.raises(UsageError, match=r"cannot be run \(Exec format error\); fix: "):
        verified_python(str(junk))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_during_the_python_check_leaves_nothing_behind(tmp_path, sig):
    """SIGTERM and SIGHUP stop the checks before a run as Ctrl-C does: exit 130, and the
    candidate interpreter's process group killed (SIGTERM left its `sleep` running)."""
    fake, pidfile = silent_interpreter(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "overhead_tui", "run", "--scenario", "python_naive", *FAST,
         "--python", str(fake), "--out", str(tmp_path / "run")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    wait_until(pidfile.exists, what="the candidate interpreter starting its child")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "overhead-tui: interrupted" and "Traceback" not in err
    assert child_gone(pidfile), "the candidate's child process outlived the command"


def test_a_version_is_taken_as_interpreters_takes_it():
    """``run --python 3.13`` names the same interpreter ``interpreters --python 3.13`` does
    (it was "no such executable"); lacking numpy, the fix names both ways to get it."""
    from overhead_tui.interpreters.resolve import resolve_python

    for version in ("3.13", "3.12"):
        try:
            found = resolve_python(version)
        except UsageError:
            continue
        try:
            assert verified_python(version) in (found, os.path.realpath(found))
        except UsageError as exc:  # found, without numpy: what to do about it
            message = str(exc)
            assert "no such executable" not in message and "\n" not in message
            assert f"overhead-tui interpreters --python {version}" in message
        return
    pytest.skip("no CPython 3.12 or 3.13 installed")
