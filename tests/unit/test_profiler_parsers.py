"""Profiler output parsers against files captured from real runs on this machine."""

from __future__ import annotations

import json

import pytest

from overhead_tui.export.stacks import to_collapsed, to_speedscope
from overhead_tui.profilers.callgrind import KERNEL_CALLS, parse_callgrind, summarize
from overhead_tui.profilers.layermap import classify, library_name
from overhead_tui.profilers.perf import layer_fractions, parse_report
from overhead_tui.profilers.pyspy import kernel_stacks, parse_collapsed, parse_frame
from overhead_tui.profilers.pyspy import summarize as summarize_stacks
from overhead_tui.profilers.scalene import parse_profile
from tests.conftest import FIXTURES

CAPTURED = FIXTURES / "profilers"


def test_perf_report_of_pure_python():
    shares = parse_report((CAPTURED / "perf-6.1-report-python_naive.txt").read_text())
    top = shares[0]
    assert (top.symbol, top.library, top.layer) == (
        "_PyEval_EvalFrameDefault",
        "libpython3.11",
        "interpreter_dispatch",
    )
    assert top.fraction == pytest.approx(0.7984)
    layers = layer_fractions(shares, "scalar_compute")
    assert layers["interpreter_dispatch"] >= 0.40 and layers["boxing"] >= 0.10
    assert sum(layers.values()) == pytest.approx(1.0)


def test_perf_report_with_jit_code_and_spaces_in_the_object_name():
    shares = parse_report((CAPTURED / "perf-6.1-report-numba_ikj.txt").read_text())
    jit = [s for s in shares if s.library.startswith("[JIT]")]
    assert jit and all(s.layer == "compiled" for s in jit)
    layers = layer_fractions(shares, "simd_compute")
    assert layers["simd_compute"] > 0.3 and "compiled" not in layers


def test_perf_report_ignores_not_supported_and_comment_lines():
    text = "# Samples: 0\n   <not supported>      instructions\n\n#\n"
    assert parse_report(text) == []


@pytest.mark.parametrize(
    ("label", "name", "file", "line", "native"),
    [
        ("kernel (python_naive.py:40)", "kernel", "python_naive.py", 40, False),
        (
            "matmul.<locals>.<listcomp> (work.py:4)",
            "matmul.<locals>.<listcomp>",
            "work.py",
            4,
            False,
        ),
        (
            "_find_and_load (<frozen importlib._bootstrap>:1176)",
            "_find_and_load",
            "<frozen importlib._bootstrap>",
            1176,
            False,
        ),
        (
            "dgemm_kernel_SKYLAKEX (libscipy_openblas64_-32a4b2a6.so)",
            "dgemm_kernel_SKYLAKEX",
            "libscipy_openblas64_-32a4b2a6.so",
            None,
            True,
        ),
        ("0x7f6b7f84524a (libc.so.6)", "0x7f6b7f84524a", "libc.so.6", None, True),
        ("thread (25170)", "thread (25170)", "<thread>", None, False),
        ("thread (25170): MainThread", "thread (25170): MainThread", "<thread>", None, False),
    ],
)
def test_pyspy_frame_labels(label, name, file, line, native):
    frame = parse_frame(label)
    assert (frame.name, frame.file, frame.line, frame.native) == (name, file, line, native)


def test_pyspy_collapsed_with_empty_stacks_threads_and_idle_frames():
    text = (CAPTURED / "pyspy-0.4.3-numpy_matmul-threads.txt").read_text() + " 1\n"
    stacks = parse_collapsed(text)
    assert stacks[-1] == ([], 1)  # a sample with no frames is accepted
    assert all(frames[0].name.startswith("thread (25170)") for frames, _ in stacks[:-1])
    kernel = kernel_stacks(stacks)
    assert kernel and all(f.name != "profile_loop" for frames, _ in kernel for f in frames)
    summary = summarize_stacks(kernel)
    assert summary.native_fraction >= 0.9  # BLAS: the samples end in native frames
    assert summary.top_frames[0].frame.endswith("(libscipy_openblas64_-32a4b2a6.so)")


def test_unsymbolised_native_frames_are_grouped_by_library():
    stacks = parse_collapsed("profile_loop (w.py:1);0x7f12 (libfoo.so.1) 3\n")
    summary = summarize_stacks(kernel_stacks(stacks))
    assert summary.top_frames[0].frame == "[libfoo]"


def test_stack_exports():
    stacks = kernel_stacks(
        parse_collapsed(
            "a (w.py:1);profile_loop (w.py:2);kernel (k.py:3) 5\n"
            "a (w.py:1);profile_loop (w.py:2);kernel (k.py:3);dgemm (libblas.so) 2\n"
        )
    )
    assert to_collapsed(stacks) == "kernel (k.py:3) 5\nkernel (k.py:3);dgemm (libblas.so) 2\n"
    doc = to_speedscope(stacks, "demo", 200)
    assert doc["$schema"] == "https://www.speedscope.app/file-format-schema.json"
    profile = doc["profiles"][0]
    assert profile["type"] == "sampled" and profile["unit"] == "seconds"
    assert len(profile["samples"]) == len(profile["weights"]) == 7
    assert profile["endValue"] == pytest.approx(7 / 200)
    assert len(doc["shared"]["frames"]) == 2  # de-duplicated
    frames = len(doc["shared"]["frames"])
    assert all(0 <= i < frames for sample in profile["samples"] for i in sample)
    json.dumps(doc)


def test_scalene_profile_lines():
    data = json.loads((CAPTURED / "scalene-2.4.0-python_naive.json").read_text())
    lines = parse_profile(data, "python_naive")
    assert {x.lineno for x in lines} >= {39, 40}
    inner = next(x for x in lines if x.lineno == 40)
    assert inner.python > 0.2 and inner.native > 0.1
    assert parse_profile({}, "python_naive") == []  # "too short" profile: nothing, no crash
    assert parse_profile({"files": {"x.py": {"lines": [None, {"lineno": 1}]}}}, "x") == []


def test_callgrind_counts_instructions_and_floats_exactly():
    profile = parse_callgrind((CAPTURED / "callgrind-3.19-python_naive-n24.out").read_text())
    assert profile.total == 9365213
    fmas = 24**3
    summary = summarize(profile, fmas, "scalar_compute")
    assert 300 < summary.instructions_per_fma < 1500
    # this capture zeroed call counts before the counted call: 2 floats per multiply-add
    assert profile.calls["PyFloat_FromDouble"] == 2 * fmas
    assert summary.floats_per_fma == pytest.approx(2 / KERNEL_CALLS)
    assert summary.layers["interpreter_dispatch"] > 0.5


@pytest.mark.parametrize(
    ("symbol", "library", "layer"),
    [
        ("_PyEval_EvalFrameDefault", "libpython3.11.so.1.0", "interpreter_dispatch"),
        ("_PyEval_EvalFrameDefault'2", "libpython3.11.so.1.0", "interpreter_dispatch"),
        ("PyFloat_FromDouble", "libpython3.11.so.1.0", "boxing"),
        ("float_dealloc", "libpython3.11.so.1.0", "boxing"),
        ("_Py_NewReference", "libpython3.11.so.1.0", "boxing"),
        ("list_subscript", "libpython3.11.so.1.0", "container_access"),
        ("PyNumber_Multiply", "libpython3.11.so.1.0", "dynamic_dispatch"),
        ("float_mul", "libpython3.11.so.1.0", "dynamic_dispatch"),
        ("_PyFunction_Vectorcall", "libpython3.11.so.1.0", "call_overhead"),
        ("PyArray_Scalar", "_multiarray_umath.cpython-311-x86_64-linux-gnu.so", "library_layers"),
        ("dgemm_kernel_SKYLAKEX", "libscipy_openblas64_-32a4b2a6.so", "dense_kernel"),
        ("dgemm_oncopy_SKYLAKEX", "libscipy_openblas64_-32a4b2a6.so", "dense_kernel"),
        ("blas_thread_server", "libscipy_openblas64_-32a4b2a6.so", "parallel"),
        ("0x00007f0d7aaa22df", "[JIT] tid 25179", "compiled"),
        ("clear_page_erms", "[kernel.kallsyms]", "other"),
        ("__memmove_avx_unaligned_erms", "libc.so.6", "memory"),
        ("something_else", "libfoo.so", "other"),
        # a rung's own module as perf names it, and as callgrind does (its whole path)
        ("matmul", "_overhead_c_naive_O2_float64_1a2b.cpython-311-x86_64-linux-gnu.so", "compiled"),
        (
            "__pyx_pw_matmul",
            "/root/.cache/overhead-tui/cbuild/_overhead_cython_typed_d8.so",
            "compiled",
        ),
    ],
)
def test_symbol_layer_map(symbol, library, layer):
    assert classify(symbol, library) == layer


def test_library_names():
    assert library_name("/x/libpython3.11.so.1.0") == "libpython3.11"
    assert library_name("_multiarray_umath.cpython-311-x86_64-linux-gnu.so") == "_multiarray_umath"
