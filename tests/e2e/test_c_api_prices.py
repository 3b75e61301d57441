"""What the twin model's C-API prices stand for: the boxing probe's Cython-compiled subscript is
the mapping-protocol call that Nuitka makes for every subscript of unchanged Python, and
Nuitka's helper still is that call (a Nuitka release with a list fast path fails here)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from overhead_tui.plugins.probes import builtin_probes_dir


def _boxing():
    path = builtin_probes_dir() / "boxing.py"
    spec = importlib.util.spec_from_file_location("probe_boxing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_probes_compiled_subscript_calls_the_mapping_protocol():
    pytest.importorskip("Cython", reason="the test extra installs Cython")
    from overhead_tui.kit.cbuild import usable_cache_dir
    from overhead_tui.kit.pybuild import build_python

    boxing = _boxing()
    _, info = build_python(boxing.NAME, boxing.C_API_SOURCE, "cython")
    folder, _ = usable_cache_dir()
    c = (folder / f"{info['module']}.c").read_text(encoding="utf-8")
    body = re.search(
        r"^static PyObject \*__pyx_pf_\w*_subscripts\([^;{]*\) \{$(.*?)^\}", c, re.M | re.S
    )
    assert body is not None
    # each `x[i]` a call of the mapping protocol on x and the index object, none inlined
    reads = re.findall(r"(\w+)\(__pyx_v_x, __pyx_v_i\b", body[1])
    assert reads == ["__Pyx_PyObject_GetItem"] * 8, reads


def test_nuitkas_subscript_helper_calls_the_types_mapping_slot():
    nuitka = importlib.util.find_spec("nuitka")
    if nuitka is None or nuitka.origin is None:
        pytest.skip("the test extra installs Nuitka")
    helpers = Path(nuitka.origin).parent / "build" / "include" / "nuitka" / "helper"
    header = helpers / "subscripts.h"
    text = header.read_text(encoding="utf-8")
    helper = re.search(
        r"static PyObject \*LOOKUP_SUBSCRIPT\(PyThreadState.*?\{(.*?)\n\}", text, re.S
    )
    assert helper is not None
    code = helper[1].split("#else", 1)[-1]  # past the experimental PyObject_GetItem switch
    first = code.strip().splitlines()[:6]
    assert any("mp_subscript(source, subscript)" in line for line in first), first
    assert "PyList_CheckExact" not in code.split("mp_subscript", 1)[0]  # no list fast path
