"""Building C rungs: the cache, a missing compiler, a compile error."""

from __future__ import annotations

import json

import numpy as np
import pytest

from overhead_tui.kit import cbuild
from overhead_tui.summary.records import RunSummary

SOURCE = """
void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            real_t s = 0;
            for (int k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_builds_validates_and_caches(dtype):
    ffi, lib, info = cbuild.build("t_naive", SOURCE, ["-O1"], dtype)
    assert info["cached"] is False and "-O1" in info["command"]
    a = np.arange(9, dtype=dtype).reshape(3, 3)
    c = np.zeros_like(a)
    lib.matmul(*cbuild.pointers(ffi, a, a, c), 3)
    assert np.allclose(c, a @ a)
    again = cbuild.build("t_naive", SOURCE, ["-O1"], dtype)[2]
    assert again["cached"] is True  # a second run does not recompile
    changed = cbuild.build("t_naive", SOURCE, ["-O2"], dtype)[2]
    assert changed["cached"] is False  # a changed flag does
    assert changed["module"] != info["module"]


def test_no_compiler_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(cbuild.Unavailable, match="no C compiler"):
        cbuild.build("t_naive", SOURCE, ["-O1"], "float64")


def test_compile_error_carries_the_compilers_message():
    broken = SOURCE.replace("real_t s = 0;", "real_t s = 0")
    with pytest.raises(cbuild.BuildError, match="expected"):
        cbuild.build("t_broken", broken, ["-O1"], "float64")


def test_vectorisation_report_of_an_auto_vectorised_loop():
    ikj = """
void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n * n; i++) c[i] = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) c[i * n + j] += a[i * n + k] * b[k * n + j];
}
"""
    info = cbuild.build("t_ikj", ikj, ["-O3"], "float64")[2]
    assert any("vectorized" in line for line in info["vectorization"])


def test_a_build_from_another_cpu_is_not_reused(monkeypatch):
    first = cbuild.build("t_cpu", SOURCE, ["-O1"], "float64")[2]
    monkeypatch.setattr(cbuild, "cpu_signature", lambda: "model name: another CPU\nflags: sse2")
    other = cbuild.build("t_cpu", SOURCE, ["-O1"], "float64")[2]
    assert other["cached"] is False and other["module"] != first["module"]


def test_an_unwritable_cache_builds_in_a_temporary_one(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "cache"))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    info = cbuild.build("t_fallback", SOURCE, ["-O1"], "float64")[2]
    assert "XDG_CACHE_HOME" in info["cache_warning"]
    assert cbuild.build("t_fallback", SOURCE, ["-O1"], "float64")[2]["cached"] is True


def test_the_recorded_command_is_the_one_that_built_the_module(tmp_path):
    import shlex
    import subprocess

    info = cbuild.build("t_cmd", SOURCE, ["-O2"], "float64")[2]
    folder, _ = cbuild.usable_cache_dir()
    command = shlex.split(info["command"])
    assert command.count("-O2") == 1 and "-shared" in command and f"{info['module']}.c" in command
    assert cbuild.build("t_cmd", SOURCE, ["-O2"], "float64")[2]["command"] == info["command"]
    # run again where it ran (the cache folder): it rebuilds the same extension
    target = folder / command[command.index("-o") + 1]
    target.unlink()
    subprocess.run(command, cwd=folder, check=True, capture_output=True)
    assert target.exists()


def test_compiler_messages_give_the_rungs_own_line_numbers():
    broken = SOURCE.replace("real_t s = 0;", "real_t s = 0")
    with pytest.raises(cbuild.BuildError, match=r"rung\.c:6:"):  # the line after `s = 0`
        cbuild.build("t_lines", broken, ["-O1"], "float64")


FAKE_CC = """#!/bin/sh
case "$1" in --version) echo "fakecc 1.0"; exit 0;; esac
echo "{message}" >&2
exit 1
"""


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("rung.c:2:10: fatal error: omp.h: No such file or directory", "no OpenMP in"),
        ("/usr/bin/ld: cannot find -lgomp\\ncollect2: error: ld returned 1", "does not link"),
    ],
)
def test_missing_openmp_is_unavailable(tmp_path, monkeypatch, message, reason):
    cc = tmp_path / "fakecc"
    cc.write_text(FAKE_CC.format(message=message))
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    with pytest.raises(cbuild.Unavailable, match=reason):
        cbuild.build("t_omp", SOURCE, ["-O2", "-fopenmp"], "float64", ["-fopenmp"])


def test_a_cold_run_builds_its_rungs_before_timing_and_keeps_each_compile_time(cli, tmp_path):
    """An empty build cache: the two C rungs are built by build workers, two at a time,
    before anything is timed; the timed workers load them from the cache, and each rung's
    record keeps the seconds its compile took."""
    out = tmp_path / "run"
    proc = cli(
        "run", "--scenario", "c_naive_O2", "--scenario", "c_tiled_simd", "--size", "32",
        "--repeats", "2", "--min-time", "0.002", "--no-probes", "--out", out,
        env={"XDG_CACHE_HOME": str(tmp_path / "cold-cache")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "preparing the modules the run compiles" in proc.stderr
    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    kinds = [e["kind"] for e in log]
    assert kinds.index("prebuilt") < kinds.index("started")
    (built,) = [e for e in log if e["kind"] == "prebuilt"]
    assert built["modules"] == {"c_naive_O2": "built", "c_tiled_simd": "built"}
    summary = RunSummary.load(out / "summary.json")
    for name in ("c_naive_O2", "c_tiled_simd"):
        build = summary.scenario(name).build
        # built by the build phase of this very run: not cached, and its seconds are that
        # build's (its compile, then the load), not the timed worker's load from the cache
        assert build.cached is False and build.cold_build_s is not None
        assert build.build_s is not None and build.build_s >= build.cold_build_s > 0


@pytest.mark.parametrize(
    ("variable", "program", "said"),
    [
        ("CC", "/bin/true", "exited 0 but wrote no"),
        ("CC", "/bin/false", "failed and said nothing"),
    ],
)
def test_a_compiler_variable_naming_no_compiler_is_one_line_with_its_fix(
    monkeypatch, variable, program, said
):
    """A ``$CC`` that is no compiler: one line naming it and the variable to fix, never a
    missing-file error or an empty reason."""
    monkeypatch.setenv(variable, program)
    with pytest.raises(cbuild.BuildError) as raised:
        cbuild.build("not_cc", SOURCE, ["-O2"], "float64")
    assert said in str(raised.value)
    assert f"point {variable} at a C compiler, or unset it (now {program})" in str(raised.value)


def test_a_cxx_that_links_no_cpp_runtime_says_to_use_the_cpp_driver(monkeypatch):
    """``CXX=gcc`` compiles C++ but links without libstdc++: the module does not load, and the
    fix names the C++ driver instead of an undefined-symbol ImportError."""
    import shutil

    if shutil.which("gcc") is None or shutil.which("g++") is None:
        pytest.skip("gcc and g++ are what this checks")
    source = """
#include <vector>
extern "C" void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    std::vector<real_t> row(n);
    for (int i = 0; i < n * n; i++) c[i] = a[i] * b[i] + row.size();
}
"""
    monkeypatch.setenv("CXX", "gcc")
    with pytest.raises(cbuild.BuildError, match="point CXX at g\\+\\+ or c\\+\\+"):
        cbuild.build("cxx_is_gcc", source, ["-O2"], "float64", language="C++")
