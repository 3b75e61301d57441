"""``overhead-tui new``: a scenario file of one's own from a built-in rung."""

from __future__ import annotations

import pytest

from overhead_tui.commands.new import DECLARATIONS, scaffold
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import read_spec


def test_the_scaffold_is_a_scenario_of_its_own_name_with_each_declaration_explained(tmp_path):
    path = scaffold("my_loop", "python_naive", tmp_path / "mine")
    spec = read_spec(path)
    assert spec.name == "my_loop" and spec.title.startswith("my_loop (from python_naive)")
    text = path.read_text()
    for declaration in ("NAME", "TITLE", "RUNG", "LAYERS", "DEFAULT_SIZE", "SETS"):
        assert f"# {declaration}: {DECLARATIONS[declaration]}\n{declaration} = " in text
    assert spec.sets == ("default",)  # not python_naive's every set: the user's own rung
    c_rung = read_spec(scaffold("my_tiles", "c_tiled", tmp_path / "mine"))
    assert c_rung.name == "my_tiles" and c_rung.rung == 13 and c_rung.sets == ("default",)


@pytest.mark.parametrize(
    ("name", "source", "says"),
    [
        ("9lives", "python_naive", "not a scenario name"),
        ("Kernel", "python_naive", "not a scenario name"),
        ("class", "python_naive", "a Python keyword"),
        ("python_naive", "python_naive", "a built-in rung's name"),
        ("mine", "no_such_rung", "unknown scenario"),
    ],
)
def test_bad_input_is_one_line_naming_the_fix(tmp_path, name, source, says):
    with pytest.raises(UsageError, match=says):
        scaffold(name, source, tmp_path)
    assert not list(tmp_path.iterdir())  # nothing written


def test_an_existing_file_is_never_overwritten(tmp_path):
    scaffold("mine", "python_naive", tmp_path)
    (tmp_path / "mine.py").write_text("# my edits\n")
    with pytest.raises(UsageError, match="exists already"):
        scaffold("mine", "python_hoisted", tmp_path)
    assert (tmp_path / "mine.py").read_text() == "# my edits\n"


def test_a_copy_of_the_dense_kernel_does_not_claim_to_be_the_dense_kernel(tmp_path):
    assert read_spec(scaffold("my_blas", "numpy_matmul", tmp_path)).dense_kernel is False
    with pytest.raises(UsageError, match="is a file"):
        scaffold("mine", "python_naive", tmp_path / "my_blas.py")


@pytest.mark.parametrize(
    ("rung", "shared"),
    [("c_openmp", "TILED_SIMD_SOURCE"), ("c_blocked_packed", "PACKED_GEMM_SOURCE")],
)
def test_a_kit_source_is_written_out_to_edit(tmp_path, rung, shared):
    import overhead_tui.api as api

    path = scaffold("mine", rung, tmp_path)
    text = path.read_text()
    assert getattr(api, shared) in text and f"SOURCE = {shared}\n" not in text
    spec = read_spec(path)  # still a scenario, its C now its own
    assert "void matmul" in spec.kernel_source
