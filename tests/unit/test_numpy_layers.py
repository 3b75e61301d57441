"""numpy's own layers: the census of a kernel's operations, its extrapolation, and the model
rows priced from the ``numpy_call`` probe's sweep."""

from __future__ import annotations

import numpy as np
import pytest

from overhead_tui.analysis.attribution import breakdown
from overhead_tui.analysis.numpy_layers import numpy_rows
from overhead_tui.analysis.rates import NumpyRate, numpy_rates
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.measured import EventsPerFma, NumpyOperations
from overhead_tui.summary.probes import probe_records
from overhead_tui.worker.counting.numpy_census import census
from overhead_tui.worker.counting.phase import _operations
from tests.conftest import scenario_result


def _outer_accumulate(a, b):
    c = np.zeros((a.shape[0], b.shape[1]))
    tmp = np.empty_like(c)
    for k in range(a.shape[1]):
        np.multiply.outer(a[:, k], b[k], out=tmp)
        c += tmp
    return c


def _rows_by_scalar(a, b):
    c = np.zeros((a.shape[0], b.shape[1]), dtype=a.dtype)
    for i in range(a.shape[0]):
        row = c[i]
        for k in range(a.shape[1]):
            row += a[i, k] * b[k]
    return c


def test_the_census_counts_each_operation_by_kind_with_its_elements():
    a, b = np.ones((8, 8)), np.full((8, 8), 2.0)
    found = census(_outer_accumulate, (a, b))
    assert found[("outer", "multiply.outer", 64.0)] == 8
    assert found[("elementwise_out", "add", 64.0)] == 8
    assert found[("view", "index", 0.0)] == 16
    assert found[("create", "zeros", 64.0)] == 1
    assert found[("create", "empty_like", 64.0)] == 1
    # nothing numpy did inside an operation is counted as the kernel's
    assert sum(found.values()) == 8 + 8 + 16 + 2


def test_the_census_sees_scalar_operands_einsum_work_blas_and_precision():
    a, b = np.ones((4, 4), dtype=np.float32), np.ones((4, 4), dtype=np.float32)
    found = census(_rows_by_scalar, (a, b))
    assert found[("elementwise", "multiply", 2.0)] == 16  # 4 float32 = 2 float64-equivalent
    assert found[("scalar_operand", "multiply", 0.0)] == 16
    assert found[("scalar_index", "index", 1.0)] == 16
    assert census(lambda x, y: np.einsum("ij,jk->ik", x, y), (a, b)) == {
        ("einsum", "einsum", 32.0): 1  # 4³ float32 multiply-adds
    }
    work = census(lambda x, y: np.einsum("ij,jk->ik", x, y), (np.ones((3, 5)), np.ones((5, 2))))
    assert work == {("einsum", "einsum", 30.0): 1}
    assert census(lambda x, y: x @ y, (np.ones((3, 5)), np.ones((5, 2)))) == {
        ("blas", "matmul", 30.0): 1
    }


def test_the_census_leaves_numpy_and_the_result_as_they_were():
    zeros = np.zeros
    a, b = np.ones((6, 6)), np.full((6, 6), 2.0)
    with pytest.raises(ZeroDivisionError):
        census(lambda x, y: 1 / 0, (a, b))
    assert np.zeros is zeros
    census(_outer_accumulate, (a, b))
    assert np.zeros is zeros
    assert np.allclose(_outer_accumulate(a, b), a @ b)


def test_operations_are_extrapolated_to_the_timed_size_per_multiply_add():
    sizes = [8, 12, 16, 20]
    censuses = [
        {("outer", "multiply.outer", float(s * s)): s, ("create", "zeros", float(s * s)): 1}
        for s in sizes
    ]
    ops = {(o.kind, o.operation): o for o in _operations(sizes, censuses, 100)}
    outer = ops[("outer", "multiply.outer")]
    assert outer.elements == pytest.approx(100 * 100)
    assert outer.calls_per_fma == pytest.approx(100 / 100**3)
    assert ops[("create", "zeros")].calls_per_fma == pytest.approx(1 / 100**3)


def test_a_kinds_rate_is_interpolated_between_the_sizes_it_was_measured_at():
    rate = NumpyRate(100.0, (90.0, 110.0), (1e3, 1e5), (0.1, 1.0))
    assert rate.in_cache == 0.1
    assert rate.at(1e4) == pytest.approx(10**-0.5)  # half-way in log-log
    assert rate.at(10) == 0.1 and rate.at(1e7) == 1.0


SWEEP = {
    "outer_call_ns": 1000.0,
    "outer_elements": [1e3, 1e5],
    "outer_ns_per_element": [0.5, 0.8],
    "elementwise_out_call_ns": 300.0,
    "elementwise_out_elements": [1e3, 1e5],
    "elementwise_out_ns_per_element": [0.2, 0.2],
    "view_ns": 80.0,
}


def test_numpy_operations_are_priced_as_call_overhead_inner_loop_and_memory():
    rates = numpy_rates(probe_records({"numpy_call": {"value": 0.3, "details": SWEEP}}))
    ops = [
        NumpyOperations("outer", "multiply.outer", 1e-5, 1e5),
        NumpyOperations("elementwise_out", "add", 1e-5, 1e5),
        NumpyOperations("view", "index", 2e-5, 0.0),
    ]
    rows = numpy_rows(ops, rates)
    by_layer: dict[str, float] = {}
    for r in rows:
        by_layer[r.layer] = by_layer.get(r.layer, 0.0) + r.ns_per_fma
    # 1e-5 calls × (1000 + 300) ns + 2e-5 views × 80 ns
    assert by_layer["library_layers"] == pytest.approx(1e-5 * 1300 + 2e-5 * 80)
    # one element per multiply-add: 0.5 + 0.2 in cache, 0.3 more for the outer's size
    assert by_layer["simd_compute"] == pytest.approx(0.7)
    assert by_layer["memory"] == pytest.approx(0.3)
    assert numpy_rows([NumpyOperations("reduce", "add.reduce", 1e-5, 1e5)], rates) is None


def test_a_numpy_rung_is_predicted_from_its_operations_not_at_the_peak():
    n = 100
    events = {
        "dispatches": 0.0,
        "numpy_calls": 2 / n**2,
        "numpy_operations": [
            {
                "kind": "outer",
                "operation": "multiply.outer",
                "calls_per_fma": 1e-4,
                "elements": 1e4,
            },
            {"kind": "elementwise_out", "operation": "add", "calls_per_fma": 1e-4, "elements": 1e4},
        ],
    }
    result = scenario_result(
        "np_outer",
        title="t",
        rung=7,
        layers=["library_layers", "simd_compute", "memory"],
        n=n,
        ns_per_fma=1.0,
        events_per_fma=from_json(EventsPerFma, events),
    )
    probes = {
        "numpy_call": {"value": 0.3, "details": SWEEP},
        "simd_fma": {"value": 40.0, "details": {"one_core_gflops": 20.0}},
    }
    b = breakdown(result, UnitCosts.from_probes(probe_records(probes)))
    assert not any("peak" in r.unit for r in b.rows)
    # 1e-4 × 1300 ns + 0.7 in loop + 0.8 − 0.5 at 1e4 elements (log-log) for the outer
    beyond = 0.5 * (0.8 / 0.5) ** 0.5 - 0.5
    assert b.predicted_ns_per_fma == pytest.approx(0.13 + 0.7 + beyond)


def test_broadcasting_and_outer_axis_reductions_are_kinds_of_their_own():
    def per_row(a, b):
        c = np.empty((a.shape[0], b.shape[1]))
        for i in range(a.shape[0]):
            c[i] = (a[i][:, None] * b).sum(axis=0)
        return c

    found = census(per_row, (np.ones((5, 5)), np.ones((5, 5))))
    assert found[("broadcast", "multiply", 25.0)] == 5
    assert found[("reduce_outer", "add.reduce", 25.0)] == 5
    flat = census(lambda x: (x * x).sum(), (np.ones((5, 5)),))
    assert flat == {("elementwise", "multiply", 25.0): 1, ("reduce", "add.reduce", 25.0): 1}


def test_each_sizes_rate_carries_the_range_of_the_probes_processes():
    probe = {
        "value": 0.3,
        "details": {**SWEEP},
        "detail_intervals": {"outer_ns_per_element": [0.4, 0.7, 0.6, 0.9]},  # 2 minima, 2 maxima
    }
    rates = numpy_rates(probe_records({"numpy_call": probe}))
    fast, slow = rates["outer"].bounds()
    assert fast.ns_per_element == (0.4, 0.7) and slow.ns_per_element == (0.6, 0.9)
    rows = numpy_rows([NumpyOperations("outer", "multiply.outer", 1e-5, 1e5)], rates)
    loop = next(r for r in rows if r.layer == "simd_compute")
    assert loop.unit_interval == (0.4, 0.6)  # the best rate of each bound, around the median 0.5
    memory = next(r for r in rows if r.layer == "memory")
    assert memory.unit_interval == pytest.approx((0.3, 0.3))  # 0.7 − 0.4, 0.9 − 0.6 at 1e5


def test_a_list_detail_gets_its_range_position_by_position(monkeypatch):
    from overhead_tui.engine import probe_runs
    from overhead_tui.worker.protocol import Probe

    runs = iter(
        [
            Probe(value=1.0, spread=0.0, samples=[1.0], details={"r": [1.0, 5.0]}),
            Probe(value=2.0, spread=0.0, samples=[2.0], details={"r": [3.0, 4.0]}),
            Probe(value=3.0, spread=0.0, samples=[3.0], details={"r": [2.0, 6.0]}),
        ]
    )
    monkeypatch.setattr(probe_runs, "_measure_once", lambda *a, **k: next(runs))
    from overhead_tui.plugins.probes import discover_probes

    spec = next(s for s in discover_probes() if s.name == "numpy_call")
    result = probe_runs.measure_probe(spec, "python3")
    assert result.details["r"] == [2.0, 5.0]  # each position's own median, not one process's
    assert result.detail_intervals["r"] == [1.0, 4.0, 3.0, 6.0]


def test_a_numeric_detail_is_its_own_median_over_the_processes(monkeypatch):
    """A detail is measured in each process as the value is: the process whose value is the
    median is not the one whose detail is (here the detail's top), so the detail takes its own
    median; a string detail stays the median process's, a whole count stays an int."""
    from overhead_tui.engine import probe_runs
    from overhead_tui.plugins.probes import discover_probes
    from overhead_tui.worker.protocol import Probe

    runs = iter(
        [
            Probe(value=1.0, spread=0.0, samples=[1.0], details={"x": 3.2, "n": 4, "s": "a"}),
            Probe(value=2.0, spread=0.0, samples=[2.0], details={"x": 6.0, "n": 4, "s": "b"}),
            Probe(value=3.0, spread=0.0, samples=[3.0], details={"x": 3.4, "n": 4, "s": "c"}),
        ]
    )
    monkeypatch.setattr(probe_runs, "_measure_once", lambda *a, **k: next(runs))
    spec = next(s for s in discover_probes() if s.name == "container_access")
    result = probe_runs.measure_probe(spec, "python3", processes=3)
    assert result.value == 2.0
    assert result.details["x"] == 3.4 and result.detail_intervals["x"] == [3.2, 6.0]
    assert result.details["n"] == 4 and isinstance(result.details["n"], int)
    assert result.details["s"] == "b"


def test_the_counting_phase_records_numpy_operations_and_survives_a_kernel_refusing_them():
    from types import SimpleNamespace

    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.worker.counting.phase import count_phase
    from overhead_tui.worker.protocol import worker_task

    def picky(a, b):  # refuses anything but a plain ndarray, as some C extensions do
        if type(a) is not np.ndarray:
            raise TypeError("plain arrays only")
        return _outer_accumulate(a, b)

    spec = next(s for s in discover([]) if s.name == "numpy_outer_accumulate")
    task = worker_task("run", spec, n=64, dtype="float64", seed=0, max_size=512)
    setup = lambda a, b: (a, b)  # noqa: E731
    counted = count_phase(SimpleNamespace(setup=setup, kernel=_outer_accumulate), task)
    ops = {(o.kind, o.operation): o for o in counted.per_fma.numpy_operations}
    assert ops[("outer", "multiply.outer")].elements == 64 * 64
    assert ops[("outer", "multiply.outer")].calls_per_fma == pytest.approx(64 / 64**3)
    refused = count_phase(SimpleNamespace(setup=setup, kernel=picky), task)
    assert refused.per_fma is not None and refused.per_fma.numpy_operations == []


def test_products_of_vectors_and_writes_into_arrays_are_kinds_of_their_own():
    def per_element(a, b):
        bt, c = b.T.copy(), np.empty((a.shape[0], b.shape[1]))
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                c[i, j] = np.dot(a[i], bt[j])
        return c

    def per_row(a, b):
        c = np.empty((a.shape[0], b.shape[1]))
        for i in range(a.shape[0]):
            c[i] = a[i] @ b
        return c

    a, b = np.ones((4, 4)), np.ones((4, 4))
    found = census(per_element, (a, b))
    assert found[("dot", "dot", 4.0)] == 16 and found[("scalar_store", "index", 1.0)] == 16
    found = census(per_row, (a, b))
    assert found[("gemv", "matmul", 16.0)] == 4
    assert found[("elementwise_out", "setitem", 4.0)] == 4
    assert census(lambda x, y: x @ y, (a, b)) == {("blas", "matmul", 64.0): 1}


def test_an_operation_no_probe_prices_is_shown_without_a_price():
    rates = numpy_rates(probe_records({"numpy_call": {"value": 0.3, "details": SWEEP}}))
    ops = [
        NumpyOperations("view", "index", 1e-3, 0.0),
        NumpyOperations("other", "add.at", 1e-3, 100.0),
    ]
    rows = numpy_rows(ops, rates)
    unpriced = [r for r in rows if "outside the model" in r.unit]
    assert len(unpriced) == 1 and "add.at" in unpriced[0].unit
    assert unpriced[0].ns_per_fma is None and unpriced[0].events_per_fma == 1e-3
    found = census(lambda x: np.add.at(x, [0, 1], 1.0), (np.zeros(4),))
    assert found == {("other", "add.at", 4.0): 1}


def test_a_numpy_function_of_no_kind_is_looked_into_or_counted_by_its_result():
    """np.sum runs numpy's own Python on the census arrays: its add.reduce is counted as the
    reduction it is; np.outer takes plain copies first (asarray): one call over its result."""
    a = np.ones((4, 4))
    assert census(lambda x: np.sum(x * x), (a,)) == {
        ("elementwise", "multiply", 16.0): 1,
        ("reduce", "add.reduce", 16.0): 1,
    }
    found = census(lambda x: np.outer(x[0], x[1]), (a,))
    assert found[("other", "outer", 16.0)] == 1


def _broadcast_then_sum(a, b):
    return (a[:, :, np.newaxis] * b[np.newaxis, :, :]).sum(axis=1)


def test_the_restarts_of_numpys_inner_loop_are_counted_and_priced():
    """A broadcast over rows of n and a sum over the middle axis each run n² inner loops of n
    elements (np.nditer's external loop): n² − 1 restarts each; a contiguous product runs one
    loop.  Each restart is priced at the probe's inner_loop_ns, in the element loop's rows."""
    a, b = np.ones((4, 4)), np.ones((4, 4))
    found = census(_broadcast_then_sum, (a, b))
    assert found[("inner_loops", "multiply", 0.0)] == 15
    assert found[("inner_loops", "add.reduce", 0.0)] == 15
    assert not any(k[0] == "inner_loops" for k in census(lambda x, y: x * y, (a, b)))
    from overhead_tui.analysis.numpy_layers import numpy_loop_rows

    rates = {"inner_loops": NumpyRate(15.0, (14.0, 16.0))}
    ops = [NumpyOperations("inner_loops", "multiply", 0.25, 0.0)]
    (row,) = numpy_loop_rows(ops, rates)
    assert row.layer == "library_layers" and row.ns_per_fma == pytest.approx(0.25 * 15.0)
    assert numpy_loop_rows(ops, {}) == []  # older probes: no price, and no fallback either


def test_the_probe_measures_a_restart_of_the_inner_loop():
    import importlib.util

    from overhead_tui.api import ProbeContext
    from overhead_tui.plugins.probes import discover_probes

    path = {p.name: p for p in discover_probes()}["numpy_call"].path
    spec = importlib.util.spec_from_file_location("numpy_call_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value = module._inner_loop_ns(ProbeContext(repeats=3, min_sample_s=0.002))
    assert np.isfinite(value) and value >= 0.0
