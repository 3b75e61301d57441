"""The compiled-Python rungs (Cython, mypyc): validated and timed through the real CLI, built
once per cache, and skipped with the pip fix, not failed, where a tool is missing."""

from __future__ import annotations

import sys

import pytest

from overhead_tui.kit import cbuild, pybuild
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST

RUNGS = {
    "cython_untyped": "Cython",
    "mypyc_naive": "mypyc",
    "cython_typed": "Cython",
    "pythran_ikj": "Pythran",
}
"""Each compiled-Python rung and the tool its build info names."""

pytest.importorskip("Cython", reason="the test extra installs Cython")
pytest.importorskip("mypyc", reason="mypyc ships with mypy (the test extra)")
pytest.importorskip("pythran", reason="the test extra installs Pythran")


def _run(cli, out, *names: str, code: int = 0) -> RunSummary:
    """Run ``names`` through the CLI (``code``: its exit code) and read the summary."""
    scenarios = [a for name in names for a in ("--scenario", name)]
    proc = cli("run", *scenarios, *FAST, "--out", out, "--json", out / "s.json")
    assert proc.returncode == code, proc.stderr
    return RunSummary.load(out / "s.json")


@pytest.mark.slow  # the cold builds: about 12 s of CPU, most of it gcc on Cython's C
def test_each_rung_is_validated_timed_and_built_once(cli, tmp_path):
    first = {r.name: r for r in _run(cli, tmp_path / "first", *RUNGS).scenarios}
    for name, tool in RUNGS.items():
        result = first[name]
        assert result.status == "ok", (name, result.error)
        assert result.max_abs_error is not None and result.max_abs_error <= result.tolerance
        assert result.median_s is not None and len(result.samples_s) == 2
        build = result.build
        assert build is not None and build.compiler == tool, name
        assert "build_ext --inplace" in build.command and build.build_s is not None
        assert "-O3" in build.flags and "-g0" in build.flags  # the C compile line as run
    for name in ("cython_typed", "pythran_ikj"):  # the hot loop of the very module built
        typed = first[name].generated_code
        assert typed is not None and typed.hot_loop and typed.fp_instructions > 0, name
        assert "-save-temps" in typed.method
    for name in ("cython_untyped", "mypyc_naive"):  # counted on their Python twin
        events = first[name].events_per_fma
        assert events is not None and events.python_twin, name
        assert events.dispatches > 1  # the twin's bytecode, not the compiled kernel's
    # one rung of each build path (C through setuptools, C++ through Pythran's build_ext);
    # every rung's build goes through the same cache
    again_run = ("cython_untyped", "pythran_ikj")
    second = {r.name: r for r in _run(cli, tmp_path / "second", *again_run).scenarios}
    for name in again_run:
        again = second[name].build
        assert second[name].status == "ok" and again is not None
        assert again.cached is True and again.module == first[name].build.module
        assert again.command == first[name].build.command


def test_a_missing_cython_skips_the_rung_with_the_pip_fix(cli, tmp_path, monkeypatch):
    blocker = tmp_path / "blocked" / "Cython"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('Cython hidden by the test')\n")
    monkeypatch.setenv("PYTHONPATH", str(blocker.parent))  # the workers inherit it
    # nothing measured: exit code 1, the rung skipped (not failed)
    (result,) = _run(cli, tmp_path / "run", "cython_untyped", code=1).scenarios
    assert result.status == "skipped"
    assert "Cython cannot be imported" in result.error
    assert f"fix: {sys.executable} -m pip install Cython" in result.error
    assert result.median_s is None and "Traceback" not in result.error


@pytest.mark.parametrize(
    ("module", "tool", "fix"),
    [("Cython", "cython", "pip install Cython"), ("mypyc", "mypyc", "pip install mypy"),
     ("setuptools", "cython", "setuptools"), ("pythran", "pythran", "pip install pythran"),
     ("nuitka", "nuitka", "pip install nuitka")],
)  # fmt: skip
def test_a_missing_tool_is_unavailable_with_its_pip_command(monkeypatch, module, tool, fix):
    monkeypatch.setitem(sys.modules, module, None)  # `import` fails, find_spec finds nothing
    monkeypatch.setattr(pybuild, "_loaded", {})
    with pytest.raises(cbuild.Unavailable, match=fix):
        pybuild.build_python("t_missing", "def f():\n    return 1\n", tool)


def test_no_c_compiler_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(cbuild.Unavailable, match="no C compiler"):
        pybuild.build_python("t_no_cc", "def f():\n    return 1\n", "cython")


def test_no_cxx_compiler_is_unavailable_for_pythran(monkeypatch, tmp_path):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(pybuild, "_loaded", {})
    with pytest.raises(cbuild.Unavailable, match=r"no C\+\+ compiler .*apt-get install g\+\+"):
        pybuild.build_python("t_no_cxx", "def f():\n    return 1\n", "pythran")
    monkeypatch.setenv("CXX", "/nowhere/c++")
    with pytest.raises(cbuild.Unavailable, match=r"CXX=/nowhere/c\+\+ is not an executable"):
        pybuild.build_python("t_no_cxx", "def f():\n    return 1\n", "pythran")


def test_a_cython_error_is_a_build_error_with_cythons_message():
    with pytest.raises(cbuild.BuildError) as caught:
        pybuild.build_python("t_broken", "def f(:\n    return 1\n", "cython")
    first, rest = str(caught.value).split("\n", 1)
    assert first.startswith("Cython build failed: SOURCE:1:"), first  # where, in SOURCE's lines
    assert "Error compiling Cython file" in rest  # the whole output follows


def test_the_key_follows_source_tool_flags_and_interpreter(monkeypatch):
    key = pybuild.python_build_key
    base = key("def f(): pass", "Cython 3.0; cc 12", [])
    assert key("def f(): pass", "Cython 3.0; cc 12", []) == base
    assert key("def g(): pass", "Cython 3.0; cc 12", []) != base
    assert key("def f(): pass", "mypyc (mypy 1.11); cc 12", []) != base
    assert key("def f(): pass", "Cython 3.1; cc 12", []) != base
    assert key("def f(): pass", "Cython 3.0; cc 12", ["-O1"]) != base
    monkeypatch.setattr(pybuild, "interpreter_abi", lambda: "cpython-313 cpython-313t-x86_64")
    assert key("def f(): pass", "Cython 3.0; cc 12", []) != base


def test_the_compile_flags_are_read_from_the_build_output():
    output = (
        "running build_ext\n"
        "/usr/bin/cc -DNDEBUG -O3 -fPIC -I/py/include -c m.c -o build/m.o -O2\n"
        "/usr/bin/cc -shared build/m.o -o m.so\n"
    )
    assert pybuild.compile_flags(output, "/usr/bin/cc") == ["-DNDEBUG", "-O3", "-fPIC", "-O2"]
    assert pybuild.compile_flags("nothing ran", "/usr/bin/cc") == []


def test_the_users_compiler_variables_do_not_reach_the_build(monkeypatch):
    """A shell's CPPFLAGS or LDFLAGS would change the module under a key that does not show
    them (CPPFLAGS=-O0 built cython_typed at -O0 and cached it): a build sets its own."""
    monkeypatch.setenv("CPPFLAGS", "-O0 -DOVERHEAD_LEAK")
    monkeypatch.setenv("LDFLAGS", "-lbogus_library_that_does_not_exist")
    monkeypatch.setattr(pybuild, "_loaded", {})
    module, info = pybuild.build_python("t_env_flags", "def f():\n    return 7\n", "cython")
    assert module.f() == 7  # LDFLAGS' missing library would have failed the link
    assert "-O3" in info["flags"] and "-O0" not in info["flags"]
    assert "-DOVERHEAD_LEAK" not in info["flags"]
