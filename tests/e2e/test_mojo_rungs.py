"""The Mojo rungs: built by ``mojo build`` into a C-ABI library, validated and timed, their hot
loop read from the assembly their build kept; skipped with the install line where Mojo is not
installed (``make mojo``: it is not part of the test set-up, about 770 MB)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from overhead_tui.kit import mojobuild
from overhead_tui.kit.cbuild import Unavailable
from overhead_tui.summary.records import RunSummary
from tests.conftest import FAST

MOJO_RUNGS = ("mojo_naive", "mojo_tiled_simd")
HAS_MOJO = (Path(sys.executable).parent / "mojo").is_file() or shutil.which("mojo") is not None


def _run(cli, tmp_path, *extra, code=0):
    out = tmp_path / "run"
    proc = cli("run", *(a for n in MOJO_RUNGS for a in ("--scenario", n)), *FAST, *extra,
               "--out", out)  # fmt: skip
    assert proc.returncode == code, proc.stdout + proc.stderr
    return RunSummary.load(out / "summary.json")


@pytest.mark.skipif(HAS_MOJO, reason="Mojo is installed")
def test_without_mojo_each_rung_is_skipped_with_the_install_line(cli, tmp_path):
    summary = _run(cli, tmp_path, code=1)
    for name in MOJO_RUNGS:
        result = summary.scenario(name)
        assert result.status == "skipped" and "make mojo" in (result.error or ""), result.error


@pytest.mark.skipif(not HAS_MOJO, reason="make mojo installs it")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_each_mojo_rung_is_built_validated_timed_and_read(cli, tmp_path, dtype):
    summary = _run(cli, tmp_path, "--dtype", dtype)
    for name in MOJO_RUNGS:
        result = summary.scenario(name)
        assert result.status == "ok" and result.gflops, (name, result.error)
        assert result.dtype == dtype
        assert result.build is not None and result.build.compiler_version.startswith("Mojo ")
        assert "--emit shared-lib" in result.build.command
        # its hot loop read from the assembly `mojo build --emit asm` kept beside the library
        assert result.generated_code.method == "mojo's assembly of the rung's build"
        assert result.generated_code.fp_instructions


def test_no_mojo_anywhere_is_unavailable_with_the_install_line(tmp_path, monkeypatch):
    monkeypatch.delenv("MOJO", raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))  # nothing beside it
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(Unavailable, match="make mojo"):
        mojobuild.mojo_compiler()
    monkeypatch.setenv("MOJO", str(tmp_path / "no-such-mojo"))
    with pytest.raises(Unavailable, match="is not an executable"):
        mojobuild.mojo_compiler()


def test_a_compile_error_names_the_line_of_source():
    """Mojo's own ``file:line:col: error:`` line, on the file the build wrote (its first line
    the definition of ``real``), becomes SOURCE's line; other errors follow, warnings do not."""
    name = "_overhead_mojo_naive_float64_0123456789ab"
    output = (
        f"/tmp/x/{name}.mojo:5:9: warning: 'UnsafePointer' is deprecated\n"
        f"/tmp/x/{name}.mojo:12:27: error: use of unknown declaration 'undefined_name'\n"
        "mojo: error: failed to parse the provided Mojo source module\n"
    )
    said = mojobuild.failure(output, name)
    assert said.splitlines()[0] == (
        "mojo build failed: SOURCE:11:27: error: use of unknown declaration 'undefined_name'"
    )
    assert "deprecated" not in said


MOJO_CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus_mojo"
"""Five Mojo kernels written by a helper who had not read the model (its README says how)."""


def test_the_blind_mojo_corpus_is_discovered_as_mojo_rungs():
    from overhead_tui.plugins.scenarios import discover

    files = sorted(MOJO_CORPUS.glob("m_*.py"))
    found = {s.name: s for s in discover([MOJO_CORPUS], include_builtin=False)}
    assert len(files) >= 5 and set(found) == {f.stem for f in files}
    assert all(spec.builds for spec in found.values())  # each declares the SOURCE it compiles


@pytest.mark.skipif(not HAS_MOJO, reason="make mojo installs it")
@pytest.mark.parametrize("path", sorted(MOJO_CORPUS.glob("m_*.py")), ids=lambda p: p.stem)
def test_each_blind_mojo_kernel_multiplies(path):
    import numpy as np

    from overhead_tui.worker.main import import_scenario

    module = import_scenario(str(path), path.stem)
    rng = np.random.default_rng(1)
    a, b = rng.random((7, 7)), rng.random((7, 7))  # 7: every kernel's leftover path runs
    product = module.to_numpy(module.kernel(*module.setup(a.copy(), b.copy())))
    assert np.allclose(product, a @ b, rtol=1e-9, atol=1e-12)


def test_a_mojo_that_is_not_mojo_is_refused_with_the_variable_to_fix(tmp_path, monkeypatch):
    """``$MOJO`` naming another program: its ``--version`` is not Mojo's (skipped, naming the
    variable); one that says it is Mojo but builds nothing: an error saying so, never a
    missing-file traceback."""
    monkeypatch.setenv("MOJO", "/bin/true")
    with pytest.raises(Unavailable, match=r"not a working Mojo compiler.*unset MOJO"):
        mojobuild.mojo_version(mojobuild.mojo_compiler())
    fake = tmp_path / "mojo"
    fake.write_text('#!/bin/sh\necho "Mojo 1.2.0 (fake)"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("MOJO", str(fake))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from overhead_tui.kit.cbuild import CDEF, BuildError

    with pytest.raises(BuildError, match=r"exited 0 but wrote no .*\.mojo\.so.*unset MOJO"):
        mojobuild.build("fake", "x", [], "float64", CDEF.format(real="double"))


@pytest.mark.skipif(not HAS_MOJO, reason="make mojo installs it")
def test_a_mojo_source_that_exports_no_matmul_says_how_to_export_it(tmp_path, monkeypatch):
    from overhead_tui.kit.cbuild import CDEF, BuildError

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = "def matmul(n: Int32):\n    pass\n"  # compiles; nothing exported
    with pytest.raises(BuildError, match=r"exports no matmul; fix: .*@export.*abi"):
        mojobuild.build("noexport", source, [], "float64", CDEF.format(real="double"))
