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
