"""A compiled-Python rung by its declarations (``kit.python_rung``): the loader takes a file
with ``SOURCE`` and ``COMPILER`` and no kernel, the worker completes it (the build itself is
``tests/e2e/test_python_compilers.py``'s), and a wrong compiler is refused with the fix."""

from __future__ import annotations

from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

from overhead_tui.kit import python_rung
from overhead_tui.plugins.scenarios import ScenarioFileError, read_spec

HEADER = """TITLE = "t"
RUNG = 5
LAYERS = ("scalar_compute",)
DEFAULT_SIZE = 8
MAX_SIZE = 64
"""
PYTHON = """
def kernel(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]
"""
CDEF = """
def kernel(double[:, ::1] a, double[:, ::1] b):
    cdef Py_ssize_t i
"""


@pytest.fixture
def builds(monkeypatch) -> list[tuple[str, str]]:
    """The (source, compiler) of each build asked for; the module built is the source run
    as Python (no compiler runs here)."""
    asked: list[tuple[str, str]] = []

    def compile_python(name, source, compiler):
        asked.append((source, compiler))
        namespace: dict = {}
        exec(source, namespace)
        return SimpleNamespace(**{k: v for k, v in namespace.items() if not k.startswith("__")})

    monkeypatch.setattr(python_rung, "compile_python", compile_python)
    return asked


def _module(**attrs) -> ModuleType:
    module = ModuleType("declared")
    module.__dict__.update({"NAME": "declared_python_rung_test", **attrs})
    return module


def test_the_worker_completes_a_declared_rung_with_its_own_setup_and_twin(builds):
    def setup(a, b):
        return a.tolist(), b.tolist()

    module = _module(SOURCE=PYTHON, COMPILER="cython", setup=setup)
    assert python_rung.is_declared(module)
    python_rung.complete(module)
    a, b = np.arange(4.0).reshape(2, 2), np.ones((2, 2))
    arguments = module.setup(a, b)
    assert builds == [(PYTHON, "cython")]
    assert arguments[1:] == (a.tolist(), b.tolist())  # the file's setup, after the build
    assert np.allclose(module.kernel(*arguments), a @ b)
    assert np.allclose(module.counted_kernel(*arguments), a @ b)  # SOURCE run as bytecode


def test_without_a_setup_the_compiled_kernel_gets_the_inputs_as_given(builds):
    module = _module(SOURCE=PYTHON, COMPILER="pythran")
    python_rung.complete(module)
    a = np.eye(3)
    arguments = module.setup(a, a)
    assert arguments[1] is a and arguments[2] is a
    assert not hasattr(module, "counted_kernel")  # Pythran's rung is priced from its assembly


def test_a_source_that_is_not_python_has_no_twin_and_an_own_kernel_is_kept(builds):
    cdef = _module(SOURCE=CDEF, COMPILER="cython")
    python_rung.complete(cdef)
    assert hasattr(cdef, "kernel") and not hasattr(cdef, "counted_kernel")
    own = _module(SOURCE=PYTHON, COMPILER="cython", kernel=len)
    assert not python_rung.is_declared(own)
    python_rung.complete(own)
    assert own.kernel is len and builds == []


def test_the_loader_takes_a_declared_rung_and_refuses_an_unknown_compiler(tmp_path):
    path = tmp_path / "declared.py"
    path.write_text(HEADER + 'COMPILER = "mypyc"\nSOURCE = r"""' + PYTHON + '"""\n')
    assert "def kernel" in read_spec(path).kernel_source
    path.write_text(HEADER + 'COMPILER = "shedskin"\nSOURCE = r"""' + PYTHON + '"""\n')
    with pytest.raises(ScenarioFileError, match=r"one of 'cython'.*got .shedskin."):
        read_spec(path)
    path.write_text(HEADER + 'SOURCE = r"""' + PYTHON + '"""\n')
    with pytest.raises(ScenarioFileError, match=r"no FLAGS, COMPILER or kernel\(\).*COMPILER ="):
        read_spec(path)


@pytest.mark.parametrize(
    ("declarations", "message"),
    [
        ('COMPILER = "cython"\nSOURCE = 42\n', "SOURCE must be a string, got int"),
        (
            'COMPILER = "cython"\nFLAGS = ["-O2"]\nSOURCE = "x"\n',
            "declares both FLAGS (a C rung) and COMPILER (compiled Python)",
        ),
        ('COMPILER = "cython"\n', "declares COMPILER but declares no SOURCE"),
        (
            'COMPILER = "cython"\nSOURCE = "x"\n\ndef kernel(a, b):\n    return a @ b\n',
            "declares COMPILER but defines kernel() too",
        ),
        (  # a language no kit builds, or one misspelt, before any worker takes it for C
            'LANGUAGE = "mojo"\nFLAGS = []\nSOURCE = "x"\n',
            "LANGUAGE must be one of 'C', 'C++', 'Mojo', got 'mojo'",
        ),
    ],
)
def test_a_half_or_double_declaration_is_refused_with_the_fix(tmp_path, declarations, message):
    """COMPILER is never silently ignored: beside FLAGS, a kernel() or no SOURCE it is refused
    at discovery, as a SOURCE that is not a string is."""
    path = tmp_path / "half.py"
    path.write_text(HEADER + declarations)
    with pytest.raises(ScenarioFileError, match=r"fix: ") as raised:
        read_spec(path)
    assert message in str(raised.value)


PAIR = """
def kernel(pair):
    a, b = pair
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]
"""


def test_one_argument_from_setup_is_passed_as_one_and_a_missing_kernel_is_named(builds):
    """A setup that returns one object (a list here) hands the compiled kernel that one object,
    as the worker does for any scenario; a module without kernel is one line with the fix."""
    module = _module(SOURCE=PAIR, COMPILER="mypyc", setup=lambda a, b: [a.tolist(), b.tolist()])
    python_rung.complete(module)
    a = np.eye(2)
    compiled_kernel, pair = module.setup(a, a)
    assert np.allclose(module.kernel(compiled_kernel, pair), a)
    exported_nothing = _module(SOURCE="def other(a, b):\n    return a\n", COMPILER="pythran")
    python_rung.complete(exported_nothing)
    with pytest.raises(AttributeError, match="#pythran export kernel"):
        exported_nothing.setup(a, a)


def test_a_pythran_kernel_not_exported_for_the_run_s_dtype_is_one_line_with_the_fix(builds):
    source = "#pythran export kernel(float64[:, :], float64[:, :])\n" + PYTHON
    module = _module(SOURCE=source, COMPILER="pythran")
    python_rung.complete(module)
    a64 = np.eye(2)
    assert module.setup(a64, a64)[1] is a64  # float64: exported
    a32 = a64.astype(np.float32)
    with pytest.raises(TypeError, match=r"for float64 only, not float32; fix: declare DTYPES"):
        module.setup(a32, a32)
