"""Model breakdown and waterfall arithmetic on fixed numbers."""

from __future__ import annotations

import math

import pytest

from overhead_tui.analysis.attribution import attribute, breakdown
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.analysis.waterfall import waterfall
from overhead_tui.summary.codec import from_json
from overhead_tui.summary.measured import EventsPerFma
from overhead_tui.summary.probes import probe_records
from overhead_tui.summary.records import RunSummary
from tests.conftest import scenario_result

PROBES = {
    "dispatch": {"value": 2.0},
    "boxing": {"value": 5.0},
    "container_access": {"value": 1.0, "details": {"store_ns": 0.5}},
    "call_overhead": {"value": 10.0, "details": {"builtin_ns": 4.0}},
    "numpy_call": {"value": 0.5, "details": {"scalar_op_ns": 40.0}},
    "simd_fma": {"value": 40.0, "details": {"one_core_gflops": 20.0}},
}


def _result(name, rung, layers, removes, n, median_s, events=None):
    return scenario_result(
        name,
        rung=rung,
        layers=layers,
        removes=removes,
        n=n,
        status="ok",
        median_s=median_s,
        samples_s=[median_s],
        events_per_fma=from_json(EventsPerFma, events) if events else None,
        dense_kernel="dense_kernel" in layers,
    )


PYTHON_EVENTS = {
    "dispatches": 10.0,
    "floats": 2.0,
    "python_calls": 0.0,
    "builtin_calls": 0.0,
    "numpy_calls": 0.0,
    "by_opcode": {"BINARY_SUBSCR_LIST_INT": 4.0, "STORE_SUBSCR_LIST_INT": 1.0},
}


def test_interpreted_breakdown_is_events_times_unit_costs():
    # 10 dispatches × 2 ns + 2 floats × 5 ns + 4 loads × 1 ns + 1 store × 0.5 ns = 34.5 ns
    n = 10
    fmas = n**3
    result = _result(
        "py",
        1,
        ["interpreter_dispatch", "boxing", "container_access"],
        [],
        n,
        40e-9 * fmas,
        PYTHON_EVENTS,
    )
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    assert b.layers["interpreter_dispatch"] == pytest.approx(20 / 40)
    assert b.layers["boxing"] == pytest.approx(10 / 40)
    assert b.layers["container_access"] == pytest.approx(4.5 / 40)
    assert b.explained == pytest.approx(34.5 / 40)
    assert b.layers["other"] == pytest.approx(5.5 / 40)
    assert sum(b.layers.values()) == pytest.approx(1.0)


def test_a_compiled_python_rung_is_predicted_from_its_twin_without_the_removed_layers():
    """Cython's untyped C keeps boxing and subscripts but not the eval loop; mypyc's unboxed
    floats keep only the subscripts: the same twin's events, priced by what each compiler's
    code still does (no rung name involved, and whatever the file declares)."""
    from overhead_tui.summary.measured import BuildInfo

    n, fmas = 10, 1000
    twin = {**PYTHON_EVENTS, "python_twin": True}
    costs = UnitCosts.from_probes(probe_records(PROBES))
    cython = _result("a", 5, ["scalar_compute"], [], n, 20e-9 * fmas, twin)
    cython.build = BuildInfo(compiler="Cython")
    b = breakdown(cython, costs)
    # 2 floats × 5 ns + 4 loads × 1 ns + 1 store × 0.5 ns = 14.5 ns; no 10 × 2 ns dispatch
    assert {r.layer for r in b.rows} == {"boxing", "container_access"}
    assert b.predicted_ns_per_fma == pytest.approx(14.5)
    assert b.explained == pytest.approx(14.5 / 20)
    assert b.prediction and b.closure == (0.7, 1.3)  # a compiled rung's closure
    mypyc = _result("b", 5, ["boxing", "scalar_compute"], [], n, 10e-9 * fmas, twin)
    mypyc.build = BuildInfo(compiler="mypyc")
    assert breakdown(mypyc, costs).predicted_ns_per_fma == pytest.approx(4.5)
    # the same events counted on the timed kernel itself: every layer priced, no twin note
    python = _result("c", 1, ["container_access"], [], n, 40e-9 * fmas, PYTHON_EVENTS)
    b = breakdown(python, costs)
    assert b.predicted_ns_per_fma == pytest.approx(34.5) and not b.prediction


def test_a_mypyc_twins_list_loads_are_priced_at_the_compiled_c_api_subscript():
    """mypyc calls its list subscripts out of line and unboxes each float: a twin built by
    mypyc has its loads at the probe's mypyc-compiled subscript; Cython's keep the
    interpreter's; without the probe detail mypyc's fall back to it too."""
    from overhead_tui.summary.measured import BuildInfo

    n, fmas = 10, 1000
    twin = {**PYTHON_EVENTS, "python_twin": True}
    probes = {**PROBES, "container_access": {"value": 1.0, "details": {"store_ns": 0.5,
              "c_api_load_ns": 3.0}}}  # fmt: skip
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.c_api_load_ns == 3.0
    layers = ["container_access", "scalar_compute"]
    mypyc = _result("b", 5, layers, [], n, 20e-9 * fmas, twin)
    mypyc.build = BuildInfo(compiler="mypyc")
    b = breakdown(mypyc, costs)
    # 4 loads × 3 ns + 1 store × 0.5 ns
    assert b.predicted_ns_per_fma == pytest.approx(12.5)
    assert any("C API (mypyc)" in r.unit for r in b.rows)
    mypyc.build = BuildInfo(compiler="Cython")  # Cython's floats stay boxed: 2 × 5 ns more
    assert breakdown(mypyc, costs).predicted_ns_per_fma == pytest.approx(14.5)
    mypyc.build = BuildInfo(compiler="mypyc")
    older = UnitCosts.from_probes(probe_records(PROBES))
    assert breakdown(mypyc, older).predicted_ns_per_fma == pytest.approx(4.5)


def test_a_cython_twins_float_ops_pay_the_generic_number_protocol():
    """Cython's untyped ``a * b`` calls PyNumber_Multiply: each specialised float op the twin
    counts carries the protocol's excess over the interpreter's inlined op (the boxing
    probe's Cython-compiled multiply minus its interpreted one), besides the float it
    creates; mypyc's unboxed floats and a rung without the probe detail carry none."""
    from overhead_tui.summary.measured import BuildInfo

    n, fmas = 10, 1000
    ops = {"BINARY_OP_MULTIPLY_FLOAT": 1.0, "BINARY_OP_ADD_FLOAT": 1.0}
    twin = {**PYTHON_EVENTS, "python_twin": True,
            "by_opcode": {**PYTHON_EVENTS["by_opcode"], **ops}}  # fmt: skip
    probes = {**PROBES, "boxing": {"value": 5.0, "details": {"c_api_float_ns": 8.0}}}
    costs = UnitCosts.from_probes(probe_records(probes))
    layers = ["boxing", "dynamic_dispatch", "container_access"]
    cython = _result("a", 5, layers, [], n, 20e-9 * fmas, twin)
    cython.build = BuildInfo(compiler="Cython")
    b = breakdown(cython, costs)
    # 14.5 ns as before + 2 float ops × (8 − 5) ns
    assert b.predicted_ns_per_fma == pytest.approx(20.5)
    assert b.layers["dynamic_dispatch"] == pytest.approx(6 / 20)
    (row,) = [r for r in b.rows if r.layer == "dynamic_dispatch"]
    assert row.ns_interval is not None and row.ns_interval[0] <= 6 <= row.ns_interval[1]
    cython.build = BuildInfo(compiler="mypyc")
    assert "dynamic_dispatch" not in breakdown(cython, costs).layers
    cython.build = BuildInfo(compiler="Cython")
    older = UnitCosts.from_probes(probe_records(PROBES))
    assert breakdown(cython, older).predicted_ns_per_fma == pytest.approx(14.5)


def test_a_nuitka_twins_loads_go_through_the_mapping_protocol_and_its_float_ops_too():
    """Nuitka reads every subscript of unchanged Python through the type's mapping slot and
    calls the operands' number slots for ``*`` and ``+=``: a twin it built has its list loads at
    the boxing probe's Cython-compiled subscript of that kind (``c_api_subscript_ns``) and its
    float ops through the number protocol; Cython's loads keep the interpreter's price, and
    without the probe detail Nuitka's fall back to it."""
    from overhead_tui.summary.measured import BuildInfo

    n, fmas = 10, 1000
    ops = {"BINARY_OP_MULTIPLY_FLOAT": 1.0, "BINARY_OP_ADD_FLOAT": 1.0}
    twin = {**PYTHON_EVENTS, "python_twin": True,
            "by_opcode": {**PYTHON_EVENTS["by_opcode"], **ops}}  # fmt: skip
    details = {"c_api_float_ns": 8.0, "c_api_subscript_ns": 6.0}
    probes = {**PROBES, "boxing": {"value": 5.0, "details": details}}
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.c_api_subscript_ns == 6.0
    layers = ["boxing", "dynamic_dispatch", "container_access"]
    nuitka = _result("n", 5, layers, [], n, 60e-9 * fmas, twin)
    nuitka.build = BuildInfo(compiler="Nuitka")
    b = breakdown(nuitka, costs)
    cython = _result("c", 5, layers, [], n, 60e-9 * fmas, twin)
    cython.build = BuildInfo(compiler="Cython")
    # the same rows as Cython's but each of the 4 loads at 6 ns instead of the interpreter's
    load_ns = UnitCosts.from_probes(probe_records(PROBES)).load_ns
    assert load_ns is not None
    as_cython = breakdown(cython, costs).predicted_ns_per_fma
    assert b.predicted_ns_per_fma == pytest.approx(as_cython + 4 * (6.0 - load_ns))
    assert any("mapping protocol (Nuitka)" in r.unit for r in b.rows)
    assert "dynamic_dispatch" in b.layers  # its float ops through the number protocol
    older = UnitCosts.from_probes(probe_records({**PROBES, "boxing": {"value": 5.0,
                                                 "details": {"c_api_float_ns": 8.0}}}))  # fmt: skip
    assert not any("mapping protocol" in r.unit for r in breakdown(nuitka, older).rows)


def test_over_explained_rung_reports_negative_other():
    result = _result(
        "py", 1, ["interpreter_dispatch", "boxing"], [], 10, 30e-9 * 1000, PYTHON_EVENTS
    )
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    assert b.explained > 1 and b.layers["other"] < 0


def test_compiled_rung_gets_peak_time_and_an_unexplained_rest():
    # 1 ns per FMA on one core at a 20 GFLOP/s peak: 0.1 ns compute, 0.9 ns not modelled
    result = _result(
        "jit",
        9,
        ["simd_compute", "memory"],
        [],
        100,
        1e-9 * 100**3,
        {"dispatches": 0.0, "by_opcode": {}},
    )
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    assert b.layers["simd_compute"] == pytest.approx(0.1)
    assert "memory" not in b.layers  # declared, not measured: never labelled with the rest
    assert b.layers["other"] == pytest.approx(0.9)  # unexplained
    assert "interpreter_dispatch" not in b.layers
    assert b.explained == pytest.approx(0.1)  # the model itself: compute at peak
    assert b.labelled_rest == 0.0


def test_waterfall_credits_measured_changes_and_multiplies_to_the_span():
    fewer = {**PYTHON_EVENTS, "dispatches": 5.0, "by_opcode": {}}  # half the dispatches
    summary = RunSummary(
        scenarios=[
            _result("a", 1, ["interpreter_dispatch", "boxing"], [], 10, 40e-6, PYTHON_EVENTS),
            _result("b", 2, ["interpreter_dispatch", "boxing"], ["memory"], 10, 25e-6, fewer),
            _result("c", 3, ["dense_kernel"], ["interpreter_dispatch"], 40, 1e-3),
        ]
    )
    attribute(summary, probe_records(PROBES))
    steps = summary.waterfall
    assert [(s.from_, s.to) for s in steps] == [("a", "b"), ("b", "c")]
    assert steps[0].speedup == pytest.approx(1.6)
    first = steps[0]
    # a → b: 5 dispatches × 2 ns and 4 loads × 1 ns + 1 store × 0.5 ns fewer per FMA
    assert first.layers["interpreter_dispatch"] == pytest.approx(10e-9 / 2)
    assert first.layers["container_access"] == pytest.approx(4.5e-9 / 2)
    assert "boxing" not in first.layers  # 2 floats per FMA on both sides: no change
    assert sum(first.layers.values()) == pytest.approx(first.saved_s_per_flop)
    assert first.layers["other"] == pytest.approx(first.saved_s_per_flop - 14.5e-9 / 2)
    assert first.changes["interpreter_dispatch"].relative == pytest.approx(-0.5)
    assert first.split == "by measured change" and first.declared == ["memory"]
    assert first.contradiction.startswith("declared: memory; measured: dispatch -50%")
    span = (40e-6 / 2000) / (1e-3 / (2 * 40**3))
    assert math.prod(s.speedup for s in steps) == pytest.approx(span, rel=1e-12)
    assert steps[1].declared == ["interpreter_dispatch"] and not steps[1].contradiction


def test_waterfall_skips_failed_rungs_and_credits_other_when_nothing_is_removed():
    summary = RunSummary(
        scenarios=[
            _result("a", 1, ["boxing"], [], 10, 2e-3),
            _result("b", 2, ["boxing"], [], 10, 1e-3),
        ]
    )
    summary.scenarios.insert(1, _result("x", 2, [], [], 10, 1.0))
    summary.scenarios[1].status = "invalid"
    steps = waterfall(summary)
    assert len(steps) == 1 and set(steps[0].layers) == {"other"}


def _rows(b, layer):
    return {r.unit: r for r in b.rows if r.layer == layer}


def test_generator_items_and_int_results_are_priced_by_their_own_probes():
    # 1 resumption at 8 ns (not a 10 ns call), 0.5 real calls at 10 ns, 2 int results at 3 ns
    probes = {
        **PROBES,
        "boxing": {"value": 5.0, "details": {"int_ns": 3.0}},
        "call_overhead": {"value": 10.0, "details": {"builtin_ns": 4.0, "generator_item_ns": 8.0}},
    }
    events = {
        "dispatches": 10.0,
        "floats": 1.0,
        "python_calls": 1.5,
        "builtin_calls": 0.0,
        "numpy_calls": 0.0,
        "by_opcode": {"YIELD_VALUE": 1.0, "BINARY_OP_ADD_INT": 2.0},
    }
    layers = ["interpreter_dispatch", "boxing", "call_overhead"]
    result = _result("gen", 3, layers, [], 10, 100e-9 * 1000, events)
    b = breakdown(result, UnitCosts.from_probes(probe_records(probes)))
    calls = _rows(b, "call_overhead")
    assert calls["ns/call"].events_per_fma == pytest.approx(0.5)
    assert calls["ns/generator item (resume, zip and sum steps)"].ns_per_fma == pytest.approx(8)
    assert _rows(b, "boxing")["ns/int (above the small-int cache)"].ns_per_fma == pytest.approx(6)
    # 10×2 + 1×5 + 6 + 5 + 8 = 44 ns of 100
    assert b.explained == pytest.approx(0.44)


def test_without_the_new_probe_details_resumptions_stay_calls():
    events = {
        "dispatches": 10.0,
        "floats": 0.0,
        "python_calls": 1.0,
        "by_opcode": {"YIELD_VALUE": 1.0, "BINARY_OP_ADD_INT": 2.0},
    }
    result = _result(
        "gen", 3, ["interpreter_dispatch", "call_overhead"], [], 10, 1e-7 * 1e3, events
    )
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    assert _rows(b, "call_overhead")["ns/call"].ns_per_fma == pytest.approx(10)
    assert "boxing" not in b.layers
    assert b.explained == pytest.approx(0.30)


NUMPY_LOOP_EVENTS = {
    "dispatches": 10.0,
    "floats": 0.0,
    "python_calls": 0.0,
    "builtin_calls": 0.0,
    "numpy_calls": 0.0,
    "numpy_scalars": 5.0,  # what the counter saw the generic instructions act on
    "by_opcode": {
        "BINARY_SUBSCR_ADAPTIVE": 2.0,
        "STORE_SUBSCR_ADAPTIVE": 1.0,
        "BINARY_OP_ADAPTIVE": 2.0,
        "BUILD_TUPLE": 2.0,
    },
}
NUMPY_LOOP_LAYERS = ["interpreter_dispatch", "library_layers", "scalar_compute"]


def test_numpy_element_loop_prices_reads_writes_arithmetic_and_index_tuples_apart():
    details = {
        "scalar_op_ns": 40.0,
        "scalar_load_ns": 30.0,
        "scalar_store_ns": 20.0,
        "scalar_multiply_ns": 25.0,
        "index_tuple_ns": 10.0,
    }
    probes = {**PROBES, "numpy_call": {"value": 0.5, "details": details}}
    result = _result("np", 5, NUMPY_LOOP_LAYERS, [], 10, 200e-9 * 1000, NUMPY_LOOP_EVENTS)
    b = breakdown(result, UnitCosts.from_probes(probe_records(probes)))
    rows = _rows(b, "library_layers")
    assert rows["ns/numpy element read"].ns_per_fma == pytest.approx(60)
    assert rows["ns/numpy element write"].ns_per_fma == pytest.approx(20)
    assert rows["ns/numpy scalar arithmetic"].ns_per_fma == pytest.approx(50)
    assert rows["ns/index tuple"].ns_per_fma == pytest.approx(20)
    # 10×2 dispatch + 150 library = 170 of 200
    assert b.explained == pytest.approx(0.85)


def test_numpy_element_loop_with_older_probes_prices_every_op_at_the_mean():
    result = _result("np", 5, NUMPY_LOOP_LAYERS, [], 10, 200e-9 * 1000, NUMPY_LOOP_EVENTS)
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    rows = _rows(b, "library_layers")
    assert list(rows) == ["ns/numpy scalar op"]
    assert rows["ns/numpy scalar op"].ns_per_fma == pytest.approx(5 * 40)


def test_probe_costs_are_brought_to_the_dispatch_probes_speed():
    # boxing's own baseline loops ran at 4 ns/dispatch, twice the dispatch probe's 2 ns: the
    # machine was twice as slow then, so its 5 ns/float is 2.5 ns at the dispatch probe's speed
    probes = {
        **PROBES,
        "boxing": {"value": 5.0, "details": {"int_ns": 6.0, "reference_dispatch_ns": 4.0}},
    }
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.boxing_ns == pytest.approx(2.5)
    assert costs.int_ns == pytest.approx(3.0)
    assert costs.normalised == {"boxing": pytest.approx(0.5)}
    assert costs.dispatch_ns == pytest.approx(2.0)  # the reference itself is never rescaled
    assert costs.peak_one_gflops == pytest.approx(20.0)  # nor the compiled peaks
    assert (
        UnitCosts.from_probes(probe_records(PROBES)).normalised == {}
    )  # older probes: as measured


def test_a_compiled_rung_is_priced_at_its_own_fp_rate():
    """256-bit FMA code (8 flops per instruction) at the probe's issue rate: 16 GFLOP/s one
    core from an AVX2 probe of 4 lanes (2 FP instructions per ns) gives 16 GFLOP/s; scalar
    mul+add code (1 flop per instruction) 2 GFLOP/s; the rest stays unexplained."""
    from overhead_tui.summary.measured import GeneratedCode

    probes = {
        **PROBES,
        "simd_fma": {
            "value": 32.0,
            "details": {"one_core_gflops": 16.0, "lanes": 4, "isa": "avx2"},
        },
    }
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.fp_issue_one == pytest.approx(2.0) and costs.fp_issue_all == pytest.approx(4.0)
    events = {"dispatches": 0.0, "by_opcode": {}}
    vector = _result("simd", 9, ["simd_compute", "memory"], [], 100, 0.5e-9 * 100**3, events)
    vector.generated_code = GeneratedCode("cc -S", 8, 8, 256, 8.0, True)
    b = breakdown(vector, costs)
    row = next(r for r in b.rows if r.layer == "simd_compute")
    assert row.ns_per_fma == pytest.approx(2 / 16.0)  # 2 flops at 16 GFLOP/s
    assert b.explained == pytest.approx(0.125 / 0.5) and "memory" not in b.layers
    assert b.layers["other"] == pytest.approx(1 - 0.25)
    scalar = _result("o2", 8, ["scalar_compute", "memory"], [], 100, 1e-9 * 100**3, events)
    scalar.generated_code = GeneratedCode("cc -S", 2, 0, None, 1.0, True)
    row = next(r for r in breakdown(scalar, costs).rows if r.layer == "scalar_compute")
    assert row.ns_per_fma == pytest.approx(2 / 2.0) and "scalar" in row.unit


def test_a_breakdown_outside_its_closure_says_the_profiles_are_primary():
    from overhead_tui.present.format import not_closing_text

    result = _result("a", 1, ["interpreter_dispatch", "boxing"], [], 10, 80e-6, PYTHON_EVENTS)
    b = breakdown(result, UnitCosts.from_probes(probe_records(PROBES)))
    # 34.5 ns modelled of 80 ns per FMA: 0.43, outside 0.85–1.15
    assert b.closure == (0.85, 1.15) and b.closes is False
    assert "does not close" in not_closing_text(b) and "press p to profile" in not_closing_text(b)
    result = _result("a", 1, ["interpreter_dispatch", "boxing"], [], 10, 34.5e-6, PYTHON_EVENTS)
    assert breakdown(result, UnitCosts.from_probes(probe_records(PROBES))).closes is True
    compiled = _result("c", 9, ["simd_compute"], [], 100, 1e-9 * 100**3, {"dispatches": 0.0})
    assert breakdown(compiled, UnitCosts.from_probes(probe_records(PROBES))).closure == (0.7, 1.3)


def test_costs_fitted_over_rung_shaped_loops_replace_the_one_at_a_time_ones():
    """loop_mix (Xeon, 2026-12-02): a dispatch 1.56 ns and a float 4.2 in the rungs' loops,
    where the one-at-a-time probes say 1.38 and 2.2; python_naive explained 0.81 → 0.91."""
    mix = {"value": 2.5, "details": {"float_ns": 8.0, "load_ns": 1.5, "fit_error": 0.07}}
    n = 10
    result = _result(
        "py", 1, ["interpreter_dispatch", "boxing", "container_access"], [], n,
        60e-9 * n**3, PYTHON_EVENTS,
    )  # fmt: skip
    b = breakdown(result, UnitCosts.from_probes(probe_records({**PROBES, "loop_mix": mix})))
    # 10 dispatches × 2.5 + 2 floats × 8 + 4 loads × 1.5 (fitted) + 1 store × 0.5 = 47.5 ns
    assert b.explained == pytest.approx(47.5 / 60)
    assert b.layers["boxing"] == pytest.approx(16 / 60)
    fitted = [r.unit for r in b.rows if r.unit.endswith(" (fit)")]
    assert sorted(fitted) == sorted(f"ns/{e} (fit)" for e in ("dispatch", "float", "load"))
    # a fit that does not describe the loops (beyond MIX_TRUSTED) is not used
    mix["details"]["fit_error"] = 0.3
    b = breakdown(result, UnitCosts.from_probes(probe_records({**PROBES, "loop_mix": mix})))
    assert b.explained == pytest.approx(34.5 / 60)


def _loop_mix_probe():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "probes" / "loop_mix.py"
    spec = importlib.util.spec_from_file_location("loop_mix", path)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    return probe


def test_the_loop_mix_fit_recovers_known_costs_and_says_how_well_they_carry():
    probe = _loop_mix_probe()
    counts = [[6, 0, 0], [12, 0, 0], [6, 1, 0], [9, 2, 0], [8, 0, 2], [13, 1, 4]]
    times = [6 * 1.5, 12 * 1.5, 6 * 1.5 + 4, 9 * 1.5 + 8, 8 * 1.5 + 3.2, 13 * 1.5 + 4 + 6.4]
    costs, fit_error, left_out = probe.fit(counts, times)
    assert costs == pytest.approx([1.5, 4.0, 1.6]) and fit_error < 1e-9 and left_out < 1e-9
    times[0] *= 1.2  # one loop that three costs cannot describe
    _, fit_error, left_out = probe.fit(counts, times)
    assert 0.01 < fit_error < left_out


def test_loop_mix_reads_each_round_against_its_own_reference_loop():
    """A host that runs each round at another speed (1.0–1.6× slower), and once stalls one
    loop 3×: the costs come back exact at the reference's median speed (a fit over each
    loop's fastest round mixes moments: Zen 3 under load gave a float 5.0 to 12.3 ns)."""
    from overhead_tui.worker.counting.opcodes import count_events

    probe = _loop_mix_probe()
    d, f, load, reference_ns = 1.5, 4.0, 0.8, 1.4
    slow = [1.0, 1.6, 1.2, 1.45, 1.1, 1.3, 1.05]

    class Host:
        def count(self, fn, *args):
            return count_events(fn, args)

        def time_many(self, fns, repeats, *args):
            *loops, _reference = fns
            times = []
            for loop in loops:
                per_trip = probe._per_trip(self, loop, args)
                ns = per_trip[0] * d + per_trip[1] * f + per_trip[2] * load
                times.append([ns * probe.REPS * probe.ORDER * 1e-9 * s for s in slow])
            times[3][2] *= 3  # one loop interrupted once
            dispatches = (
                self.count(probe.baseline_loop, 2000, 1.5, 2.5).dispatches
                - self.count(probe.baseline_loop, 1000, 1.5, 2.5).dispatches
            ) / 1000
            trip = probe.REFERENCE_TRIPS * dispatches * reference_ns * 1e-9
            return [*times, [trip * s for s in slow]]

    measured = probe.measure(Host())
    median = sorted(slow)[len(slow) // 2]
    assert measured.details["reference_dispatch_ns"] == pytest.approx(reference_ns * median)
    assert measured.estimate == pytest.approx(d * median, rel=1e-6)
    assert measured.details["float_ns"] == pytest.approx(f * median, rel=1e-6)
    assert measured.details["fit_error"] < 1e-6


def test_a_builtin_driven_loop_pays_each_c_call_and_the_float_it_makes():
    # sum(map(operator.mul, row, col)): per multiply-add one builtin called from C, one float
    events = {**PYTHON_EVENTS, "dispatches": 0.0, "floats": 0.0, "c_calls": 1.0, "c_floats": 1.0}
    events["by_opcode"] = {}
    details = {"builtin_ns": 4.0, "c_call_item_ns": 12.0}
    with_c_api = {
        **PROBES,
        "call_overhead": {"value": 10.0, "details": details},
        "boxing": {"value": 5.0, "details": {"c_api_float_ns": 8.0}},
    }
    result = _result("map", 2, ["boxing", "call_overhead"], [], 10, 25e-9 * 1000, events)
    b = breakdown(result, UnitCosts.from_probes(probe_records(with_c_api)))
    assert b.predicted_ns_per_fma == pytest.approx(12.0 + 8.0)
    # an interpreter without Cython has no C-API probe: the float's creation alone
    without = {**with_c_api, "boxing": {"value": 5.0}}
    b = breakdown(result, UnitCosts.from_probes(probe_records(without)))
    assert b.predicted_ns_per_fma == pytest.approx(12.0 + 5.0)
    assert any("creation only" in r.unit for r in b.rows)


DECLARATIONS = [
    ["interpreter_dispatch"],
    ["interpreter_dispatch", "library_layers", "scalar_compute"],
    ["library_layers", "simd_compute", "memory"],
    ["boxing", "container_access", "dynamic_dispatch", "scalar_compute", "memory"],
    list(reversed(["interpreter_dispatch", "boxing", "dynamic_dispatch", "container_access",
                   "call_overhead", "library_layers", "scalar_compute", "memory"])),
]  # fmt: skip


@pytest.mark.parametrize("fixture", ["recorded_summary.json", "recorded_summary_v3.json"])
def test_a_kernel_gets_the_same_explained_under_any_declaration(fixture):
    """LAYERS and REMOVES only name and order the breakdown: the same measured kernel with its
    layers declared any other way is explained the same (a numpy loop declared with
    ``scalar_compute`` once took another model)."""
    import dataclasses
    from pathlib import Path

    summary = RunSummary.load(Path(__file__).parents[1] / "fixtures" / fixture)
    costs = UnitCosts.from_probes(summary.probes, summary)
    checked = 0
    for result in summary.scenarios:
        first = breakdown(result, costs)
        if first is None or "parallel" in result.layers:
            continue
        for layers in DECLARATIONS:
            other = dataclasses.replace(result, layers=layers, removes=list(reversed(layers)))
            again = breakdown(other, costs)
            assert again is not None
            assert again.explained == pytest.approx(first.explained, rel=1e-9), result.name
            assert again.predicted_ns_per_fma == pytest.approx(first.predicted_ns_per_fma)
        checked += 1
    assert checked >= 3
