from __future__ import annotations

import shutil

import pytest

from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import ScenarioFileError, discover, read_spec
from overhead_tui.plugins.selection import select
from overhead_tui.summary.layers import LAYERS
from tests.conftest import FAULTY, FIXTURES, ROOT

BUILTIN = [
    "python_naive",
    "python_hoisted",
    "python_zip_sum",
    "python_array_module",
    "cython_untyped",
    "mypyc_naive",
    "nuitka_naive",
    "numpy_scalar_loop",
    "numpy_row_vectorized",
    "numpy_outer_accumulate",
    "c_naive_O0",
    "jax_fori_naive",
    "c_naive_O2",
    "cpp_vector_naive",
    "cython_typed",
    "mojo_naive",
    "cpp_flat_native",
    "numba_naive",
    "pythran_ikj",
    "c_ikj_O3_native",
    "cpp_xsimd_ikj",
    "numba_ikj",
    "c_tiled",
    "mojo_tiled_simd",
    "c_tiled_simd",
    "cpp_eigen",
    "c_blocked_packed_256",
    "numba_parallel",
    "c_blocked_packed",
    "c_openmp",
    "cpp_eigen_native",
    "c_blocked_packed_threads",
    "numpy_einsum",
    "scipy_blas_direct",
    "numpy_matmul_1thread",
    "jax_matmul",
    "torch_matmul",
    "numpy_matmul",
    "numpy_matmul_own_loops",
    "c_avx512_dot",
    "c_amx_tiles",
]


def test_builtin_ladder_in_rung_order():
    specs = discover()
    assert [s.name for s in specs] == BUILTIN
    assert [s.rung for s in specs] == sorted(s.rung for s in specs)
    assert [s.name for s in specs if s.dense_kernel] == ["numpy_matmul"]
    for spec in specs:
        assert set(spec.layers) <= set(LAYERS) and set(spec.removes) <= set(LAYERS)
        assert spec.description
        assert "def kernel" in spec.kernel_source or "SOURCE = " in spec.kernel_source
        assert 1 <= spec.default_size <= spec.max_size


def test_user_folder_is_discovered_like_the_builtin_one():
    specs = discover([FAULTY])
    names = [s.name for s in specs]
    assert names[: len(BUILTIN)] == BUILTIN
    assert {"raises", "hangs", "wrong"} <= set(names)
    only_user = discover([FAULTY], include_builtin=False)
    assert "python_naive" not in [s.name for s in only_user]


def test_discovery_does_not_execute_scenario_code(tmp_path):
    (tmp_path / "boom.py").write_text(
        (FAULTY / "raises.py").read_text().replace('NAME = "raises"', 'NAME = "boom"')
        + "\nraise SystemExit('executed at import')\n"
    )
    assert discover([tmp_path], include_builtin=False)[0].name == "boom"


@pytest.mark.parametrize(
    ("folder", "message"),
    [
        ("broken_syntax", "syntax error"),
        ("broken_missing", "missing declaration RUNG"),
        ("broken_layer", "LAYERS names unknown layer(s) 'gremlins'"),
    ],
)
def test_broken_files_name_the_problem(folder, message):
    with pytest.raises(ScenarioFileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        discover([FIXTURES / folder], include_builtin=False)


def test_duplicate_names_and_missing_folders(tmp_path):
    shutil.copy(FAULTY / "raises.py", tmp_path / "raises.py")  # one name: the file's
    with pytest.raises(ScenarioFileError, match="already used"):
        discover([FAULTY, tmp_path], include_builtin=False)
    declared = tmp_path / "declared"
    declared.mkdir()
    text = (FAULTY / "raises.py").read_text()
    (declared / "raises_again.py").write_text(text.replace("RUNG =", 'NAME = "raises"\nRUNG ='))
    with pytest.raises(ScenarioFileError, match="already used"):
        discover([FAULTY, declared], include_builtin=False)
    with pytest.raises(ScenarioFileError, match="does not exist"):
        discover([tmp_path / "nope"])
    # one folder named twice (or the built-in one by its path) is read once, not a clash
    once = discover([FAULTY], include_builtin=False)
    assert discover([FAULTY, FAULTY / ".." / FAULTY.name], include_builtin=False) == once
    assert discover([ROOT / "scenarios"]) == discover()


def test_non_literal_declaration_is_rejected(tmp_path):
    text = (FAULTY / "raises.py").read_text().replace("RUNG = 101", "RUNG = 100 + 1")
    (tmp_path / "x.py").write_text(text)
    with pytest.raises(ScenarioFileError, match="plain literal"):
        read_spec(tmp_path / "x.py")


def test_select_unknown_name_suggests_close_matches():
    specs = discover()
    assert [s.name for s in select(specs, ["numpy_matmul", "python_naive"])] == [
        "python_naive",
        "numpy_matmul",
    ]
    with pytest.raises(UsageError, match="did you mean python_naive"):
        select(specs, ["python_naiv"])


def test_a_run_naming_nothing_takes_the_default_set_and_sets_add_up(tmp_path):
    from overhead_tui.plugins.selection import SETS

    specs = discover()
    default = [s.name for s in select(specs, [])]
    assert default == [s.name for s in specs if "default" in s.sets]
    assert "python_naive" in default and "numpy_matmul" in default
    assert [s.name for s in select(specs, [], ["all"])] == [s.name for s in specs]
    cpp = {s.name for s in select(specs, [], ["cpp"])}
    assert {"cpp_eigen", "python_naive", "numpy_matmul"} <= cpp and "cython_typed" not in cpp
    # a name and a set: both, in rung order, each once
    both = [s.name for s in select(specs, ["cython_typed"], ["cpp", "c"])]
    assert "cython_typed" in both and "c_tiled" in both and len(both) == len(set(both))
    assert both == [s.name for s in specs if s.name in both]
    # a name alone: only that name, not the default set as well
    assert [s.name for s in select(specs, ["c_tiled"])] == ["c_tiled"]
    # every built-in scenario is in some set besides "all", and every set it names is listed
    assert all(s.sets for s in specs)
    assert {x for s in specs for x in s.sets} <= set(SETS)


def test_an_unknown_set_is_one_line_naming_the_known_ones():
    with pytest.raises(UsageError, match=r"unknown set 'cp'; fix: did you mean cpp\? choose one"):
        select(discover(), [], ["cp"])
    with pytest.raises(UsageError, match=r"unknown set 'PYTHON'; fix: did you mean python\?"):
        select(discover(), [], ["PYTHON"])


def test_a_file_of_ones_own_runs_in_the_default_set_unless_it_declares_sets(tmp_path):
    text = (FAULTY / "raises.py").read_text()
    (tmp_path / "mine.py").write_text(text.replace("RUNG = 101", "RUNG = 101\nNAME = 'mine'"))
    (tmp_path / "tagged.py").write_text(
        text.replace("RUNG = 101", "RUNG = 102\nNAME = 'tagged'\nSETS = ('mine_only',)")
    )
    specs = discover([tmp_path])
    assert "mine" in {s.name for s in select(specs, [])}
    assert "tagged" not in {s.name for s in select(specs, [])}
    assert [s.name for s in select(specs, [], ["mine_only"])] == ["tagged"]
    for bad, message in [
        ("('Bad Set',)", "SETS names 'Bad Set', not a set name"),
        ("('',)", "SETS names '', not a set name"),
        ("(1,)", r"SETS must be a tuple of strings; fix: quote each item"),
    ]:
        (tmp_path / "tagged.py").write_text(text.replace("RUNG = 101", f"RUNG = 101\nSETS = {bad}"))
        with pytest.raises(ScenarioFileError, match=message):
            read_spec(tmp_path / "tagged.py")
    for declared, sets in [("'python'", ("python",)), ("('c', 'c', 'cpp')", ("c", "cpp"))]:
        (tmp_path / "tagged.py").write_text(
            text.replace("RUNG = 101", f"RUNG = 101\nSETS = {declared}")
        )
        assert read_spec(tmp_path / "tagged.py").sets == sets  # a string is one set; each once


def test_probe_processes_declaration(tmp_path):
    from overhead_tui.engine.probe_runs import PROCESSES
    from overhead_tui.plugins.probes import discover_probes

    builtin = {s.name: s for s in discover_probes()}
    assert builtin["boxing"].processes == 3 and builtin["dispatch"].processes == 0  # declared, not
    head = 'NAME = "p"\nTITLE = "t"\nUNIT = "ns"\nLAYER = "boxing"\n'
    (tmp_path / "p.py").write_text(head + "PROCESSES = 0\n")
    assert discover_probes(tmp_path)[0].processes == 0 < PROCESSES
    (tmp_path / "p.py").write_text(head + "PROCESSES = 99\n")
    with pytest.raises(ScenarioFileError, match="PROCESSES"):
        discover_probes(tmp_path)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "RUNG = 101",
            'RUNG = "101"',
            "RUNG has the wrong type ('101'); fix: make it a literal of type int",
        ),
        (
            "RUNG = 101",
            "NAME = 5\nRUNG = 101",
            "NAME has the wrong type (5); fix: make it a literal of type str",
        ),
        (
            "RUNG = 101",
            'DTYPES = ("float128",)\nRUNG = 101',
            "DTYPES must be a non-empty subset of float64, float32, float16, bfloat16, int8, "
            "each once ('float128' is not one); fix: e.g. DTYPES = ('float64', 'float32')",
        ),
        (
            "RUNG = 101",
            'NAME = "Bad-Name"\nRUNG = 101',
            "NAME 'Bad-Name' (declared) is not snake_case",
        ),
        (
            "RUNG = 101",
            'REMOVES = ("boxng",)\nRUNG = 101',
            "REMOVES names unknown layer(s) 'boxng'; fix: did you mean 'boxing'?",
        ),
        (
            "RUNG = 101",
            'DTYPES = ("float64", "float64")\nRUNG = 101',
            "each once (got ('float64', 'float64'))",
        ),
        (
            "RUNG = 101",
            "DEFAULT_SIZE = 9000\nMAX_SIZE = 64\nRUNG = 101",
            "DEFAULT_SIZE = 9000 is not within 1 … MAX_SIZE = 64; fix: a DEFAULT_SIZE from 1 "
            "to 64, or a larger MAX_SIZE",
        ),
    ],
)
def test_a_declaration_of_the_wrong_type_names_the_fix(tmp_path, old, new, message):
    (tmp_path / "x.py").write_text((FAULTY / "raises.py").read_text().replace(old, new))
    with pytest.raises(ScenarioFileError) as raised:
        read_spec(tmp_path / "x.py")
    assert message in str(raised.value)


def test_a_file_that_is_not_python_source_names_the_fix(tmp_path):
    (tmp_path / "bad.py").write_bytes(b"\xff\xfe garbage \x00")
    with pytest.raises(ScenarioFileError, match=r"not Python source .*; fix the file or move it"):
        read_spec(tmp_path / "bad.py")


def test_the_kernel_source_keeps_the_files_line_numbers():
    from overhead_tui.plugins.scenarios import discover

    spec = next(s for s in discover() if s.name == "numba_ikj")
    lines = (ROOT / "scenarios" / "numba_ikj.py").read_text().splitlines()
    parts = spec.kernel_source.split("\n\n\n")
    assert len(parts) == len(spec.kernel_lines) == 2
    for part, start in zip(parts, spec.kernel_lines, strict=True):
        assert part.splitlines()[0] == lines[start - 1]  # "@njit(...)", "def kernel(a, b):"


def test_every_name_a_builtin_file_takes_from_the_api_is_there():
    """A scenario or probe file runs only in a worker, so a name it imports from
    ``overhead_tui.api`` that the API lacks would surface only when that file is measured: each
    such name is read from the files' import lines (``ast``, nothing executed) and looked up."""
    import ast

    from overhead_tui import api

    files = sorted((ROOT / "scenarios").glob("*.py")) + sorted((ROOT / "probes").glob("*.py"))
    taken = {
        (path.name, alias.name)
        for path in files
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.module == "overhead_tui.api"
        for alias in node.names
    }
    assert any(name == "scalar_fma.py" for name, _ in taken)  # the check reads the imports
    missing = [(path, name) for path, name in taken if name not in api.__all__]
    assert not missing
    for _, name in sorted(taken):
        assert getattr(api, name) is not None  # each home module has it


def test_a_size_above_a_scenarios_maximum_suggests_leaving_it_out_only_among_several():
    from overhead_tui.commands.common import check_sizes
    from overhead_tui.errors import UsageError
    from overhead_tui.summary.records import Settings

    specs = select(discover(), ["python_naive", "numpy_matmul"])
    for chosen, suggested in ((specs[:1], False), (specs, True)):
        with pytest.raises(UsageError) as info:
            check_sizes(chosen, Settings(size=99999))
        said = str(info.value)
        assert said.startswith("size 99999 is above python_naive's maximum of 512; fix: use a size")
        assert ("--scenario NAME" in said) == suggested, said


def test_name_removes_and_dtypes_have_defaults(tmp_path):
    """Left out, NAME is the file's name, REMOVES none and DTYPES float64 and float32; a
    file that declares them is read as it declares them."""
    specs = discover([FAULTY], include_builtin=False)
    spec = next(s for s in specs if s.path.name == "raises.py")
    assert (spec.name, spec.removes, spec.dtypes) == ("raises", (), ("float64", "float32"))
    text = (
        (FAULTY / "raises.py")
        .read_text()
        .replace("RUNG =", 'NAME = "mine"\nREMOVES = ("memory",)\nDTYPES = ("float32",)\nRUNG =')
    )
    (tmp_path / "raises.py").write_text(text)
    (mine,) = discover([tmp_path], include_builtin=False)
    assert (mine.name, mine.removes, mine.dtypes) == ("mine", ("memory",), ("float32",))
    (tmp_path / "raises.py").rename(tmp_path / "Bad-Name.py")
    (tmp_path / "Bad-Name.py").write_text(text.replace('NAME = "mine"\n', ""))
    with pytest.raises(
        ScenarioFileError, match=r"\(the file's\) is not snake_case .*fix: rename it"
    ):
        discover([tmp_path], include_builtin=False)


def test_every_public_name_of_the_api_resolves():
    """``api`` maps each name to the module it lives in: a name whose module moved (as
    ``disassemble`` did, to ``kit.simd``) would fail only in the file that takes it."""
    from overhead_tui import api

    for name in api.__all__:
        assert getattr(api, name) is not None, name
    assert api.disassemble.__module__ == "overhead_tui.kit.simd"


@pytest.mark.parametrize("rung", ["cython_untyped", "nuitka_naive"])
def test_a_rung_that_compiles_python_naives_loop_unchanged_holds_it_character_for_character(rung):
    """cython_untyped and nuitka_naive say their SOURCE is python_naive's kernel, character for
    character: each rung measures its compiler on the same loop only while that holds (the
    duplicate is on purpose, and pinned here rather than left to drift)."""
    import importlib.util

    specs = {s.name: s for s in discover()}
    spec = importlib.util.spec_from_file_location(f"{rung}_source", specs[rung].path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.SOURCE.strip() == specs["python_naive"].kernel_source.strip()
