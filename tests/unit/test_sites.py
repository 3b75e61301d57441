"""Sites of C work (``worker.counting.sites``): found where they run, named by what runs and on
what, timed at their own operands, and priced by the model whatever the file declares."""

from __future__ import annotations

import math
import operator
from dataclasses import replace

import numpy as np
import pytest

from overhead_tui.analysis.sites import site_rows, timed_c_calls
from overhead_tui.worker.counting.opcodes import count_events
from overhead_tui.worker.counting.site_costs import site_costs, time_sites
from overhead_tui.worker.counting.site_source import pure
from overhead_tui.worker.counting.site_timing import time_site


def _dot_loop(a, bt):
    n = a.shape[0]
    c = np.empty((n, n))
    for i in range(n):
        row = a[i]
        for j in range(n):
            c[i, j] = np.dot(row, bt[j])
    return c


def _matmul_operator_loop(a, bt):
    n = a.shape[0]
    c = np.empty((n, n))
    for i in range(n):
        row = a[i]
        for j in range(n):
            c[i, j] = row @ bt[j]
    return c


class Number:
    def __init__(self, v):
        self.v = v

    def __mul__(self, other):
        return Number(self.v * other.v)


def _dunder_loop(xs, ys):
    out = []
    for x in xs:
        for y in ys:
            out.append(x * y)
    return out


def _sum_map(a, bt):
    return [[sum(map(operator.mul, row, col)) for col in bt] for row in a]


def _slow_call(pad, n):
    total = 0
    for _ in range(n):
        total += len(sorted(pad))
    return total


def _by_label(events, text):
    return [(site, calls) for site, calls in events.sites if text in site.label]


def test_a_numpy_call_per_element_is_one_site_named_by_its_signature():
    a = np.ones((4, 4))
    events = count_events(_dot_loop, (a, a.copy()), sites=True)
    [(site, calls)] = _by_label(events, "numpy.dot")
    assert calls == 16
    assert site.label == "numpy.dot(ndarray[4] float64, ndarray[4] float64)"
    assert site.numpy and site.timeable and site.op == "CALL"
    # numpy's own Python (its __array_function__ dispatcher) runs inside the site: not the
    # kernel's frames, and not priced twice
    assert events.python_calls == 0
    [(store, stores)] = [(s, c) for s, c in events.sites if s.op == "STORE_SUBSCR"]
    assert stores == 16 and store.label == "ndarray[4,4] float64[tuple[2]] = …"


def test_the_operator_spelling_is_the_same_mechanism_by_another_site():
    a = np.ones((4, 4))
    events = count_events(_matmul_operator_loop, (a, a.copy()), sites=True)
    [(site, calls)] = [(s, c) for s, c in events.sites if s.op == "BINARY_OP"]
    assert calls == 16
    assert site.label == "ndarray[4] float64 @ ndarray[4] float64" and site.numpy


def test_a_dunder_method_reached_from_a_c_slot_is_a_frame_and_leaves_its_site_untimed():
    xs = [Number(float(i)) for i in range(3)]
    events = count_events(_dunder_loop, (xs, xs), sites=True)
    assert events.python_calls == 9 + 9  # __mul__, and the __init__ each product makes
    [(site, calls)] = [(s, c) for s, c in events.sites if s.op == "BINARY_OP"]
    assert calls == 9 and site.reaches_python and not site.timeable
    assert time_site(site, 1.0) is None


def test_a_builtin_loop_over_a_c_iterator_is_timed_whole_with_its_iterator_rebuilt():
    a = [[1.5] * 5 for _ in range(5)]
    events = count_events(_sum_map, (a, a), sites=True)
    [(site, calls)] = _by_label(events, "sum(")
    assert calls == 25
    assert site.label == "sum(map(_operator.mul, list[5], list[5]))"
    timed = time_site(site, 0.0)
    assert timed is not None and timed[0] > 0


def test_a_c_call_slowed_on_purpose_is_priced_from_its_own_timing():
    pad = list(range(3000, 0, -1))
    sizes = [8, 12, 16, 20]
    counted = [count_events(_slow_call, (pad, n), sites=True).sites for n in sizes]
    timings = time_sites(counted, 0.0)
    assert [t.attempted for t in timings[1].values()] == [False] * len(timings[1])
    costs = {c.label: c for c in site_costs(sizes, timings, 20)}
    sorted_site = costs["sorted(list[3000])"]
    assert sorted_site.c_call and sorted_site.call_ns is not None
    rows = [r for r in site_rows(list(costs.values())) if "sorted(list[3000])" in r.unit]
    # priced from its own timing (no probe has a price for sorted), never left out
    assert rows and rows[0].unit_cost is not None and rows[0].unit_cost > 0
    assert rows[0].unit == "ns/execution, measured at its own arguments: sorted(list[3000])"
    assert rows[0].layer == "call_overhead"
    assert timed_c_calls(list(costs.values()))[0] >= sorted_site.calls_per_fma


@pytest.mark.parametrize(
    ("source", "expected"),
    [("a[i]", True), ("x.shape", True), ("a[i, k] * b[k, j]", True), ("f(x)", False),
     ("[v for v in x]", False), ("(y := 3)", False)],
)  # fmt: skip
def test_only_side_effect_free_operands_are_evaluated_again(source, expected):
    import ast

    assert pure(ast.parse(source, mode="eval").body) is expected


def _blocked(a, b, block=16):
    n = len(a)
    c = [[0.0] * n for _ in range(n)]
    for i0 in range(0, n, block):
        for k0 in range(0, n, block):
            for j0 in range(0, n, block):
                for i in range(i0, min(i0 + block, n)):
                    ci, ai = c[i], a[i]
                    for k in range(k0, min(k0 + block, n)):
                        aik, bk = ai[k], b[k]
                        for j in range(j0, min(j0 + block, n)):
                            ci[j] += aik * bk[j]
    return c


def test_a_kernel_whose_counts_are_no_cubic_is_counted_at_its_own_n():
    from types import SimpleNamespace

    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.worker.counting.phase import count_phase
    from overhead_tui.worker.protocol import worker_task

    spec = next(s for s in discover([]) if s.name == "python_naive")
    # a loop over blocks of 16 (as a recursion down to a base case, or padding to a power of
    # two): its counts are a cubic inside 8–20 and none beyond
    module = SimpleNamespace(setup=lambda a, b: (a.tolist(), b.tolist()), kernel=_blocked)
    task = worker_task("run", spec, n=26, dtype="float64", seed=0, max_size=512)
    counted = count_phase(module, task)
    assert counted.per_fma is not None and counted.per_fma.counted_sizes == [8, 12, 16, 20, 26]
    exact = count_events(_blocked, module.setup(np.ones((26, 26)), np.ones((26, 26))))
    assert counted.per_fma.dispatches == pytest.approx(exact.dispatches / 26**3)

    # the ijk loop's counts are a cubic: the four small sizes carry it
    def ijk(a, b):
        cols = list(zip(*b, strict=True))
        return [[sum(x * y for x, y in zip(r, c, strict=True)) for c in cols] for r in a]

    module.kernel = ijk
    assert count_phase(module, task).per_fma.counted_sizes == [8, 12, 16, 20]


def _pops(items):
    stack = list(items)
    total = 0.0
    while stack:
        total += stack.pop()
    return total


def test_a_call_that_fails_when_repeated_is_left_untimed_not_raised():
    events = count_events(_pops, ([1.0, 2.0, 3.0],), sites=True)
    [(site, calls)] = [(s, c) for s, c in _by_label(events, ".pop(") if s.op == "CALL"]
    assert calls == 3 and site.timeable
    assert time_site(site, 0.0) is None  # its list empties: IndexError inside the timing


def test_a_kernel_found_running_bytecode_times_its_reference_whatever_it_declared():
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.summary.measured import EventsPerFma
    from overhead_tui.worker.counting.phase import wants_reference
    from overhead_tui.worker.protocol import Counted, worker_task

    spec = next(s for s in discover([]) if s.name == "numpy_matmul")  # declares no dispatch
    task = worker_task("run", spec, n=16, model=True, reference_dispatch=False)
    python = Counted((8,), EventsPerFma(dispatches=12.0), (), 8, "")
    compiled = Counted((8,), EventsPerFma(dispatches=0.001), (), 8, "")
    assert wants_reference(python, task) and not wants_reference(compiled, task)
    asked = worker_task("run", spec, n=16, model=True, reference_dispatch=True)
    assert not wants_reference(python, asked)  # timed beside its samples already
    assert not wants_reference(python, worker_task("run", spec, n=16))  # no model: no probes


def test_numpy_work_inside_numpys_own_python_still_gets_its_census():
    """np.einsum is Python calling c_einsum: that call is its site's (not a numpy call the
    kernel made), yet the census of what numpy did must still run and see the einsum."""
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.worker.counting.phase import count_phase
    from overhead_tui.worker.main import import_scenario
    from overhead_tui.worker.protocol import worker_task

    spec = next(s for s in discover([]) if s.name == "numpy_einsum")
    module = import_scenario(str(spec.path), spec.name)
    task = worker_task("run", spec, n=32, dtype="float64", seed=0, max_size=512, model=True)
    per_fma = count_phase(module, task).per_fma
    assert per_fma is not None and per_fma.numpy_calls == 0
    assert [op.kind for op in per_fma.numpy_operations] == ["einsum"]
    assert [s.label.split("(")[0] for s in per_fma.sites or []] == ["numpy.einsum"]


def test_a_site_timed_at_a_busier_moment_is_brought_to_the_samples_speed():
    from overhead_tui.analysis.sites import site_scale
    from overhead_tui.summary.measured import SiteCost

    # the same reference loop: 3 ns/dispatch beside the samples, 6 beside the sites' timings
    assert site_scale([3.0, 3.1, 2.9], [6.0, 6.2]) == pytest.approx(3.0 / 6.1)
    assert site_scale([], [6.0]) == 1.0 and site_scale([3.0], None) == 1.0
    # the kernel itself timed beside the sites, where it was: its samples' median over that
    assert site_scale([3.0], [6.0], 0.004, [0.005, 0.0052, 0.0048]) == pytest.approx(0.8)
    assert site_scale([3.0], [6.0], 0.004, []) == pytest.approx(0.5)  # a slow kernel: the loop
    site = SiteCost(op="CALL", label="len(list[20])", calls_per_fma=0.5, call_ns=40.0)
    (plain,) = site_rows([site])
    (scaled,) = site_rows([site], 0.5)
    assert plain.ns_per_fma == pytest.approx(20.0) and scaled.ns_per_fma == pytest.approx(10.0)
    assert "×0.50: the samples' speed" in scaled.unit and "×" not in plain.unit


def _row_dot(row, col):
    return np.sum(row * col)


_VECTORIZED = np.vectorize(_row_dot, signature="(n),(n)->()")


def _vectorized_kernel(a, b):
    return _VECTORIZED(a[:, np.newaxis, :], b.T[np.newaxis, :, :])


def test_library_code_calling_back_into_the_users_has_its_own_sites_and_the_users():
    """np.vectorize's Python loop calls the user's function: the call is untimed, and the
    loop's own C work (its subscripts of numpy arrays) and the user function's numpy calls are
    sites timed where they run, not bytecode priced at nothing."""
    a = np.ones((4, 4))
    events = count_events(_vectorized_kernel, (a, a.copy()), sites=True)
    [(outer, outer_calls)] = _by_label(events, "_row_dot(")
    assert outer_calls == 1 and outer.reaches_python and not outer.timeable
    [(user_sum, sums)] = _by_label(events, "numpy.sum(")
    assert sums == 16 and user_sum.timeable
    library = [(s, c) for s, c in events.sites if "numpy" in s.code.co_filename and s.timeable]
    assert any(s.op == "BINARY_SUBSCR" and s.numpy and c >= 16 for s, c in library)
    assert events.c_entries >= 16  # the loop's calls of the user function and its ndindex


def _fsum_of_comprehensions(a, b):
    n = len(a)
    return [[math.fsum([a[i][k] * b[k][j] for k in range(n)]) for j in range(n)] for i in range(n)]


def _sum_of_a_rebound_call(a, b):
    zip = lambda *rows: [(1.0, 1.0)]  # noqa: E731 - the kernel rebinds a builtin's name
    return [sum([x * y for x, y in zip(r, b[0])]) for r in a]


def test_a_c_call_over_a_comprehension_is_timed_at_the_comprehension_s_value():
    """``math.fsum([...])``: the comprehension runs as counted bytecode, and fsum's own loop
    over the list it made is timed at that list, not left unpriced."""
    a = [[1.0] * 4 for _ in range(4)]
    events = count_events(_fsum_of_comprehensions, (a, a), sites=True)
    [(fsum, calls)] = _by_label(events, "math.fsum")
    assert calls == 16 and fsum.timeable
    assert fsum.label == "math.fsum(list[4])" and fsum.elements == 4
    # a comprehension calling a name the kernel rebound is no value to evaluate again
    events = count_events(_sum_of_a_rebound_call, (a, a), sites=True)
    [(total, _)] = [(s, c) for s, c in events.sites if s.label.startswith("sum(")]
    assert not total.timeable


def _outer_accumulate(a, b):
    c = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):
        c += np.outer(a[:, k], b[k, :])
    return c


def _noise_added(a, b):
    return [np.random.rand(a.shape[1]) + a[0] for _ in range(2)]


def test_an_operand_a_numpy_call_made_is_evaluated_once_and_its_operation_timed():
    """``C += np.outer(a, b)``: numpy's functions return a new array and change nothing, so
    the in-place add is timed at the array np.outer made; np.random's calls change the
    generator's state, so an operation on their result stays untimed."""
    a = np.ones((4, 4))
    events = count_events(_outer_accumulate, (a, a.copy()), sites=True)
    [(add, adds)] = [(s, c) for s, c in events.sites if s.op == "BINARY_OP"]
    assert adds == 4 and add.timeable
    assert add.label == "ndarray[4,4] float64 += ndarray[4,4] float64"
    state = np.random.get_state()[1].copy()
    events = count_events(_noise_added, (a, a.copy()), sites=True)
    [(plus, _)] = [(s, c) for s, c in events.sites if s.op == "BINARY_OP"]
    assert not plus.timeable
    np.random.set_state(("MT19937", state, 0))


def test_a_numpy_function_the_census_could_not_see_into_is_priced_by_its_own_fit():
    """``np.outer`` runs on plain copies of its operands: the census counts it as ``other``
    (no loop row), so its element loop is its own timing's slope, not left unexplained."""
    from overhead_tui.analysis.sites import unpriced_calls
    from overhead_tui.summary.measured import NumpyOperations, SiteCost

    site = SiteCost(
        op="CALL",
        label="numpy.outer(ndarray[64] float64, ndarray[64] float64)",
        numpy=True,
        calls_per_fma=1 / 4096,
        call_ns=2000.0,
        element_ns=25.0,
        elements=128.0,
        measured_ns=[2200.0, 5200.0],
    )
    ops = [NumpyOperations("other", "outer", 1 / 4096, 4096.0)]
    rows = site_rows([site], 1.0, unpriced_calls(ops))
    assert [r.layer for r in rows] == ["library_layers", "simd_compute"]
    assert sum(r.ns_per_fma for r in rows) * 4096 == pytest.approx(2000.0 + 25.0 * 128)
    # a numpy call whose loop the census prices keeps its time at the smallest size only
    (fixed,) = site_rows([site], 1.0, unpriced_calls([NumpyOperations("outer", "multiply")]))
    assert fixed.ns_per_fma * 4096 == pytest.approx(2200.0)


def _products(x, y):
    z = x * y  # a ufunc: the census sees it
    return z, x.dot(y)  # a method: the census does not


def test_the_census_names_the_instructions_whose_numpy_work_it_priced():
    """Where the census saw a priced operation, its loop rows price that site; a method it
    never saw (``ndarray.dot``) leaves the site to its own timing's fit."""
    import dis

    from overhead_tui.worker.counting.numpy_census import census

    where: set[tuple[str, int]] = set()
    census(_products, (np.ones(4), np.ones(4)), where)
    code = _products.__code__
    offsets = {i.opname: i.offset for i in dis.get_instructions(code)}
    assert where == {(code.co_qualname, offsets["BINARY_OP"])}


def test_a_site_is_brought_to_the_samples_speed_by_the_kernel_timed_right_after_it():
    """A noisy host changes speed within a second: each site is scaled by the samples' median
    over the kernel call timed just after it, where there is one; else the run-wide scale."""
    from overhead_tui.summary.measured import SiteCost

    slow_moment = SiteCost(op="CALL", label="len(list[20])", calls_per_fma=1.0, call_ns=40.0,
                           kernel_s=0.010)  # fmt: skip
    untimed = SiteCost(op="CALL", label="len(list[30])", calls_per_fma=0.5, call_ns=40.0)
    first, second = site_rows([slow_moment, untimed], 0.5, median_s=0.005)
    assert first.ns_per_fma == pytest.approx(20.0) and "×0.50" in first.unit  # 5 ms / 10 ms
    assert second.ns_per_fma == pytest.approx(10.0)  # 40 × 0.5 (the run-wide scale) × 0.5
    (fast,) = site_rows([replace(slow_moment, kernel_s=0.0025)], 0.5, median_s=0.005)
    assert fast.ns_per_fma == pytest.approx(80.0) and "×2.00" in fast.unit


def test_the_counting_phase_times_the_kernel_after_each_site():
    """A numpy kernel of a few ms a call: each timed site carries its kernel call."""
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.worker.counting.phase import count_phase
    from overhead_tui.worker.main import import_scenario
    from overhead_tui.worker.protocol import worker_task

    spec = next(s for s in discover([]) if s.name == "numpy_row_vectorized")
    module = import_scenario(str(spec.path), spec.name)
    task = worker_task("run", spec, n=24, dtype="float64", seed=0, max_size=512, model=True)
    sites = count_phase(module, task).per_fma.sites or []
    timed = [s for s in sites if s.call_ns is not None]
    assert timed and all(s.kernel_s is not None and s.kernel_s > 0 for s in timed)
