"""A C rung by its declarations (``kit.c_rung``): the loader takes a file with ``SOURCE`` and
``FLAGS`` and no functions, the worker completes it, and a half-written one is refused."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

from overhead_tui.kit.builds import build_of
from overhead_tui.kit.c_rung import complete, is_declared, prepare
from overhead_tui.plugins.scenarios import ScenarioFileError, read_spec
from tests.conftest import scenario_declarations
from tests.e2e.test_cbuild import SOURCE as C_SOURCE

HEADER = scenario_declarations("declared", 9, ["scalar_compute"], title="t")
SOURCE = f'SOURCE = r"""{C_SOURCE}"""\n'


def test_the_loader_takes_a_declared_c_rung_and_shows_its_source(tmp_path):
    path = tmp_path / "declared.py"
    path.write_text(HEADER + 'FLAGS = ["-O2"]\n' + SOURCE)
    spec = read_spec(path)
    assert "void matmul" in spec.kernel_source


def test_a_c_source_without_flags_is_refused_with_the_fix(tmp_path):
    path = tmp_path / "half.py"
    path.write_text(HEADER + SOURCE)
    with pytest.raises(ScenarioFileError, match=r"declares SOURCE but no FLAGS.*add FLAGS = "):
        read_spec(path)


def _module(**attrs) -> ModuleType:
    module = ModuleType("declared")
    module.__dict__.update({"NAME": "declared_c_rung_test", **attrs})
    return module


def test_the_worker_completes_a_declared_rung_which_then_multiplies():
    module = _module(SOURCE=C_SOURCE, FLAGS=["-O2"])
    assert is_declared(module)
    complete(module)
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 8)), rng.random((8, 8))
    c = module.kernel(*module.setup(a, b))
    assert np.allclose(c, a @ b)
    built = build_of("declared_c_rung_test")  # the typed record the worker reports
    assert built is not None and built.flags and built.command


def test_a_rung_with_its_own_kernel_is_left_as_it_is_and_its_own_setup_kept():
    def setup(a, b):
        return a, b

    own = _module(SOURCE="", FLAGS=[], setup=setup, kernel=len)
    assert not is_declared(own)
    complete(own)
    assert own.kernel is len
    checked = _module(SOURCE=C_SOURCE, FLAGS=["-O2"], setup=setup)
    complete(checked)  # a setup that checks the CPU, then calls prepare: the kernel is given
    assert checked.setup is setup and checked.kernel is not None


def test_blas_threads_limits_numpy_s_blas_before_the_build():
    from threadpoolctl import threadpool_info, threadpool_limits

    module = _module(SOURCE=C_SOURCE, FLAGS=["-O2"], BLAS_THREADS=1)
    complete(module)
    before = max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")
    try:
        module.setup(np.ones((4, 4)), np.ones((4, 4)))
        blas = [p for p in threadpool_info() if p["user_api"] == "blas"]
        assert blas and all(p["num_threads"] == 1 for p in blas)
    finally:
        threadpool_limits(limits=before, user_api="blas")  # the test process's as it was


def test_a_file_that_passes_its_build_info_dict_first_still_gets_it_filled():
    legacy: dict = {}
    a = np.ones((4, 4))
    prepare(legacy, "legacy_c_rung_test", C_SOURCE, ["-O2"], [], a, a)
    assert legacy["command"] and build_of("legacy_c_rung_test").command == legacy["command"]
