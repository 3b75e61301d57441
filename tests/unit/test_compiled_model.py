"""The compiled-rung model on fixed numbers, and the hot-loop reader on the ladder's own loops."""

from __future__ import annotations

import pytest

from overhead_tui.analysis.attribution import breakdown
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.summary.codec import from_json, to_json
from overhead_tui.summary.measured import EventsPerFma, GeneratedCode, ResidentTiming
from overhead_tui.summary.probes import probe_records
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.worker.hotloop import hot_loop
from tests.conftest import FIXTURES, fixture_summary, scenario_result

# measured on a Xeon vCPU (2026-12-02): 5 instructions/cycle, add 2, FMA 4, stack add 8 cycles
# at 4 GHz; 2 FMA instructions of 4 lanes per cycle on one core
PROBES = {
    "dispatch": {"value": 1.5},
    "simd_fma": {
        "value": 128.0,
        "details": {"one_core_gflops": 64.0, "lanes": 4, "isa": "avx2"},
    },
    "scalar_fma": {
        "value": 1.0,
        "details": {"fadd_ns": 0.5, "fma_ns": 1.0, "stack_fadd_ns": 2.0, "issue_per_ns": 20.0},
    },
    "dense_peak": {"value": 150.0, "details": {"one_thread_gflops": 75.0}},
}
NO_EVENTS = {"dispatches": 0.0, "by_opcode": {}}


def _costs():
    return UnitCosts.from_probes(probe_records(PROBES))


def _rung(name, layers, ns_per_fma, code=None, resident_ns=None, n=64):
    result = scenario_result(
        name,
        layers=layers,
        n=n,
        ns_per_fma=ns_per_fma,
        events_per_fma=from_json(EventsPerFma, NO_EVENTS),
    )
    result.generated_code = code
    if resident_ns is not None:
        result.resident = ResidentTiming(n, 4096, [resident_ns * 1e-9] * 3)
    return result


def test_a_chain_bound_loop_is_priced_at_its_chains_latency_and_memory_is_the_rest_beyond_l1():
    # c_naive_O2's loop: 7 instructions, one mulsd + addsd, the sum in a register
    code = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}])
    b = breakdown(_rung("o2", ["scalar_compute", "memory"], 0.9, code, resident_ns=0.6), _costs())
    q = b.compiled
    # issue 7 / 20 = 0.35 ns, FP 2 / (64 / 8) = 0.25 ns, chain 1 × 0.5 ns: the chain binds
    assert (q.issue_ns, q.fp_ns, q.chain_ns) == pytest.approx((0.35, 0.25, 0.5))
    assert q.in_core_bound == "chain"
    assert b.layers["scalar_compute"] == pytest.approx(0.5 / 0.9)
    assert b.layers["memory"] == pytest.approx(0.3 / 0.9)  # 0.9 − 0.6 in L1
    assert b.layers["other"] == pytest.approx(0.1 / 0.9)  # in L1 0.6, in-core model 0.5
    assert b.closure == (0.7, 1.3) and b.closes
    assert q.l1_bytes_per_fma == 16 and q.resident_n == 64


def test_resident_copies_that_refill_from_l2_give_a_lower_bound_or_no_memory_row():
    """Zen 3 (2026-12-07): its L1 picks ways by linear address, so each page-aliased copy of a
    line refills from L2 (aliased loads 5–10× loads within one page); c_naive_O2 at n = 384
    ran 1.43 ns/FMA on its own arrays and 1.8 on the aliased copies, so the row read 0."""
    from overhead_tui.analysis.memory import LOWER_BOUND_UNIT
    from overhead_tui.present.format import compiled_text

    code = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}])
    zen3 = _costs_with_l1(aliased_load_ns=2.1, page_load_ns=0.3)
    # the copies ran faster than its own arrays: the row beyond them is a lower bound
    rung = _rung("o2", ["scalar_compute", "memory"], 0.9, code, resident_ns=0.6)
    b = breakdown(rung, zen3)
    assert b.layers["memory"] == pytest.approx(0.3 / 0.9)
    assert [r.unit for r in b.rows if r.layer == "memory"] == [LOWER_BOUND_UNIT]
    assert b.compiled.memory_note.startswith("a lower bound on this CPU") and "7.0×" in (
        b.compiled.memory_note)  # fmt: skip
    assert f"memory hierarchy: {b.compiled.memory_note}" in compiled_text(b.compiled)
    # slower on them than on its own arrays: not separated, said so (the second sign, which
    # needs no probe)
    for costs in (zen3, _costs()):
        rung = _rung("o2", ["scalar_compute", "memory"], 1.45, code, resident_ns=1.8, n=384)
        b = breakdown(rung, costs)
        assert "memory" not in b.layers and b.compiled.resident_n is None
        assert "slower than the 1.45" in b.compiled.memory_note
    # where aliased loads hit L1 (a physically tagged L1), the resident row stands as before
    intel = _costs_with_l1(aliased_load_ns=0.31, page_load_ns=0.3)
    rung = _rung("o2", ["scalar_compute", "memory"], 0.9, code, resident_ns=0.6)
    b = breakdown(rung, intel)
    assert b.layers["memory"] == pytest.approx(0.3 / 0.9) and b.compiled.memory_note == ""


def test_a_row_stride_of_an_even_number_of_lines_is_timed_again_at_an_order_that_spreads():
    """c_naive_O2 at n = 384 on a Zen 3 (2026-12-07): 1.50 ns/FMA, 0.94 at n = 392 (49 lines
    a row: every L1 set), its in-core chain 0.955; on page-aliased copies 1.51 (not
    L1-resident there). The set conflicts of its row stride are the memory row it missed."""
    from dataclasses import replace

    from overhead_tui.worker.compiled_rung import spreading_order

    assert [spreading_order(n, 8) for n in (384, 512, 200, 100, 8)] == [392, 520, None, None, None]
    assert spreading_order(384, 4) == 400  # float32: 24 lines a row, 25 at 400
    code = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}])
    rung = _rung("o2", ["scalar_compute", "memory"], 1.5, code, resident_ns=1.51, n=384)
    zen3 = _costs_with_l1(aliased_load_ns=2.1, page_load_ns=0.3)
    assert breakdown(rung, zen3).explained == pytest.approx(0.5 / 1.5)  # the chain alone
    rung.resident = replace(rung.resident, spread_n=392, spread_samples_s_per_fma=[0.94e-9] * 3)
    b = breakdown(rung, zen3)
    conflicts = [r for r in b.rows if "reach every L1 set" in r.unit]
    assert len(conflicts) == 1 and conflicts[0].ns_per_fma == pytest.approx(1.5 - 0.94)
    assert b.explained == pytest.approx((0.5 + 0.56) / 1.5)  # chain + conflicts


def test_a_kernel_over_python_objects_gets_no_resident_timing_and_one_over_arrays_does():
    import types

    import numpy as np

    from overhead_tui.worker.compiled_rung import time_resident
    from overhead_tui.worker.protocol import WorkerTask

    def module(setup):
        return types.SimpleNamespace(setup=setup, kernel=lambda a, b: a @ b)

    task = WorkerTask("run", "x", "x.py", n=16, dtype="float64", repeats=1, min_sample_s=1e-4)
    lists = time_resident(module(lambda a, b: (a.tolist(), b.tolist())), task)
    arrays = time_resident(module(lambda a, b: (a, b)), task)
    assert lists is None
    assert arrays is not None and len(arrays.samples_s_per_fma) >= 3
    assert all(np.isfinite(x) and x > 0 for x in arrays.samples_s_per_fma)


def test_an_issue_bound_vector_loop_and_no_memory_row_without_a_resident_timing():
    # the ikj loop: 6 instructions, one 256-bit FMA (4 multiply-adds), nothing carried
    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 6, 8.0, 2, 1, [])
    b = breakdown(_rung("ikj", ["simd_compute"], 0.1, code), _costs())
    assert b.compiled.in_core_bound == "issue"
    assert b.layers["simd_compute"] == pytest.approx(6 / 4 / 20 / 0.1)
    assert "memory" not in b.layers
    assert b.compiled.l1_bytes_per_fma == pytest.approx(3 * 32 / 4)


def test_a_stack_slot_chain_and_a_parallel_rung_across_cores():
    code = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 28, 2.0, 16, 2, [{"stack_fadd": 1}])
    b = breakdown(_rung("o0", ["scalar_compute"], 2.0, code), _costs())
    assert b.compiled.chain_ns == pytest.approx(2.0) and b.explained == pytest.approx(1.0)
    wide = GeneratedCode("numba", 8, 8, 256, 8.0, True, 18, 64.0, 6, 0, [{"fma": 1}] * 8)
    both = breakdown(_rung("par", ["simd_compute", "parallel"], 0.1, wide), _costs())
    # all-cores FP rate 128 / 8 = 16 instructions/ns; 2 cores for issue and chains
    assert both.compiled.fp_ns == pytest.approx(8 / 32 / 16)
    assert both.compiled.issue_ns == pytest.approx(18 / 32 / 40)
    assert both.compiled.threads == 2


# Zen 4 (2026-12-04, scalar_fma's l1 kernels at 3.6 GHz): 2 ymm loads and 1 ymm store per
# cycle, but 1 zmm load and half a zmm store: a 512-bit access is two 256-bit ones; two zmm
# loads and a zmm store together take 3 cycles (1 access a cycle), not 2
ZEN4_L1 = {
    "l1_loads_per_ns_64": 7.1,
    "l1_stores_per_ns_64": 3.6,
    "l1_mixed_per_ns_64": 8.1,
    "l1_loads_per_ns_256": 7.2,
    "l1_stores_per_ns_256": 3.6,
    "l1_mixed_per_ns_256": 7.7,
    "l1_loads_per_ns_512": 3.34,
    "l1_stores_per_ns_512": 1.82,
    "l1_mixed_per_ns_512": 3.67,
}


def _costs_with_l1(**rates):
    probes = {
        **PROBES,
        "scalar_fma": {"value": 1.0, "details": {**PROBES["scalar_fma"]["details"], **rates}},
    }
    return UnitCosts.from_probes(probe_records(probes))


def _loop(width, lanes, loads, stores, instructions=6):
    """A one-FMA loop of ``lanes`` lanes with accesses of the given widths (bits)."""
    return GeneratedCode(
        "cc -S", 1, 1, width, 2.0 * lanes, True, instructions, 2.0 * lanes,
        len(loads), len(stores), [], load_widths=loads, store_widths=stores,
    )  # fmt: skip


def test_a_512_bit_loop_whose_accesses_l1_cannot_keep_up_with_is_l1_bound():
    # the ikj loop at 512 bits: 6 instructions, one FMA of 8 lanes, loads of B and C, a store of C
    costs = _costs_with_l1(**ZEN4_L1)
    assert costs.l1_rates["stores"][512] == 1.82 and costs.l1_rates["loads"][64] == 7.1
    b = breakdown(_rung("ikj", ["simd_compute"], 0.1, _loop(512, 8, [512, 512], [512])), costs)
    q = b.compiled
    # issue 6 / 20 / 8 = 0.0375 ns; an iteration's 2 loads alone take 2 / 3.34 = 0.60 ns, its
    # store 1 / 1.82 = 0.55 ns, all three mixed 3 / 3.67 = 0.82 ns: the mix binds, / 8 FMAs
    assert q.l1_ns == pytest.approx(3 / 3.67 / 8)
    assert q.in_core_bound == "l1" and q.l1_ns > q.issue_ns
    assert b.layers["simd_compute"] == pytest.approx(q.l1_ns / 0.1)
    assert b.rows[-1].unit.startswith("ns/L1-access (loads and stores mixed)")
    assert "512-bit" in b.rows[-1].unit and "l1_ns" in q.methods
    alone = {k: v for k, v in ZEN4_L1.items() if "mixed" not in k}  # a kind unmeasured: none
    assert breakdown(_rung("ikj", ["simd_compute"], 0.1, _loop(512, 8, [512, 512], [512])),
                     _costs_with_l1(**alone)).compiled.l1_ns is None  # fmt: skip
    # the same loop at 256 bits (4 lanes): half the work an access, at twice the rate
    narrow = _loop(256, 4, [256, 256], [256])
    n = breakdown(_rung("ikj", ["simd_compute"], 0.1, narrow), costs).compiled
    assert n.l1_ns == pytest.approx(max(2 / 7.2, 1 / 3.6, 3 / 7.7) / 4)
    assert n.in_core_bound == "l1" and n.l1_ns < q.l1_ns
    # a broadcast is one scalar load, not a 512-bit one
    broadcast = _loop(512, 8, [64, 64, 512], [])
    m = breakdown(_rung("kernel", ["simd_compute"], 0.1, broadcast), costs).compiled
    assert m.l1_ns == pytest.approx((2 / 7.1 + 1 / 3.34) / 8)  # loads alone bind


def test_without_the_widths_or_their_rates_there_is_no_l1_bound():
    only_narrow = {k: v for k, v in ZEN4_L1.items() if not k.endswith("_512")}
    older = GeneratedCode("cc -S", 1, 1, 512, 16.0, True, 6, 16.0, 2, 1, [])  # no widths
    for costs, code in (
        (_costs(), _loop(512, 8, [512, 512], [512])),
        (_costs_with_l1(**only_narrow), _loop(512, 8, [512, 512], [512])),
        (_costs_with_l1(**ZEN4_L1), older),
    ):
        q = breakdown(_rung("ikj", ["simd_compute"], 0.1, code), costs).compiled
        assert q.l1_ns is None and q.in_core_bound == "issue" and "l1_ns" not in q.methods
    # a scalar loop is priced at the 64-bit rates
    scalar = GeneratedCode(
        "cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}], load_widths=[64, 64]
    )
    q = breakdown(_rung("o2", ["scalar_compute"], 0.9, scalar), _costs_with_l1(**ZEN4_L1)).compiled
    assert q.l1_ns == pytest.approx(2 / 7.1) and q.in_core_bound == "chain"  # loads > mixed


def test_a_blas_rung_is_priced_at_the_dense_kernels_measured_rate():
    one = breakdown(_rung("blas1", ["dense_kernel"], 0.03), _costs())
    assert one.layers["dense_kernel"] == pytest.approx(2 / 75 / 0.03)
    every = breakdown(_rung("blas", ["dense_kernel", "parallel"], 0.015), _costs())
    assert every.layers["dense_kernel"] == pytest.approx(2 / 150 / 0.015)


def test_a_parallel_rung_is_priced_on_the_cores_its_threads_got_while_timed():
    """A library that kept its product on one thread (XLA's dot), or threads that got a core
    and a third beside a busy neighbour: the one-thread rate × the cores measured, never more
    than the all-threads rate; a one-thread rung is not sped up by its helper threads."""
    kept = _rung("xla", ["dense_kernel", "parallel"], 0.03)
    kept.sample_cores = [1.0, 0.98, 1.02]
    b = breakdown(kept, _costs())
    assert b.layers["dense_kernel"] == pytest.approx(2 / 75 / 0.03)
    assert "1.00 cores it got" in b.rows[-1].unit
    kept.sample_cores = [1.33]
    assert breakdown(kept, _costs()).rows[-1].ns_per_fma == pytest.approx(2 / (75 * 1.33))
    kept.sample_cores = [2.5]  # more than the machine's: the all-threads rate
    assert breakdown(kept, _costs()).rows[-1].ns_per_fma == pytest.approx(2 / 150)
    one = _rung("blas1", ["dense_kernel"], 0.03)
    one.sample_cores = [2.0]
    assert breakdown(one, _costs()).rows[-1].ns_per_fma == pytest.approx(2 / 75)
    wide = GeneratedCode("numba", 8, 8, 256, 8.0, True, 18, 64.0, 6, 0, [{"fma": 1}] * 8)
    crowded = _rung("par", ["simd_compute", "parallel"], 0.1, wide)
    crowded.sample_cores = [1.25]
    assert breakdown(crowded, _costs()).compiled.fp_ns == pytest.approx(8 / 32 / (8 * 1.25))


def test_an_older_file_without_the_new_quantities_still_gets_its_fp_rate_row():
    old = GeneratedCode("cc -S", 1, 1, 256, 8.0, True)  # no instructions, flops, chains
    b = breakdown(_rung("ikj", ["simd_compute"], 0.1, old), _costs())
    assert b.compiled is None
    assert b.rows[-1].unit.startswith("ns/flop at its FP rate")
    written = to_json(_rung("x", ["simd_compute"], 1.0, old))
    assert "resident" not in written and "instructions" not in written["generated_code"]
    assert from_json(ScenarioResult, written).generated_code == old


O0 = """
.L5:
	movl	-4(%rbp), %eax
	imull	-60(%rbp), %eax
	movsd	(%rax), %xmm1
	movsd	(%rdx), %xmm0
	mulsd	%xmm1, %xmm0
	movsd	-16(%rbp), %xmm1
	addsd	%xmm1, %xmm0
	movsd	%xmm0, -16(%rbp)
	addl	$1, -20(%rbp)
.L4:
	movl	-20(%rbp), %eax
	cmpl	-60(%rbp), %eax
	jl	.L5
"""
O2 = """
.L4:
	movsd	(%rax), %xmm0
	mulsd	(%rdx), %xmm0
	addq	$8, %rax
	addq	%rcx, %rdx
	addsd	%xmm0, %xmm1
	cmpq	%rsi, %rax
	jne	.L4
"""
IKJ = """
.L7:
	vmovupd	(%rcx,%rax), %ymm1
	vfmadd213pd	(%rdx,%rax), %ymm2, %ymm1
	vmovupd	%ymm1, (%rdx,%rax)
	addq	$32, %rax
	cmpq	%r13, %rax
	jne	.L7
"""
REGISTER_TILE = """
.L13:
	vmovupd	(%rax), %ymm1
	vbroadcastsd	(%r8,%r9,8), %ymm10
	addq	$64, %rax
	vfmadd231pd	%ymm1, %ymm10, %ymm9
	vfmadd231pd	%ymm1, %ymm10, %ymm8
	vfmadd231pd	%ymm1, %ymm10, %ymm9
	incq	%r9
	cmpl	%r9d, %edx
	jg	.L13
"""


def test_the_hot_loop_reader_finds_each_ladder_loops_chains():
    o0 = hot_loop(O0)
    assert o0.chains == [{"stack_fadd": 1}] and o0.flops == 2 and o0.instructions == 12
    assert (o0.loads, o0.stores) == (8, 2)  # the counter's add to memory is both
    assert o0.load_widths == [64] * 8 and o0.store_widths == [64] * 2
    o2 = hot_loop(O2)
    assert o2.chains == [{"fadd": 1}] and o2.instructions == 7 and o2.loads == 2
    assert o2.load_widths == [64, 64]  # movsd, and mulsd's memory source: scalars
    ikj = hot_loop(IKJ)  # ymm1 is refilled by a load first: nothing carried
    assert ikj.chains == [] and (ikj.loads, ikj.stores) == (2, 1) and ikj.flops == 8
    assert ikj.load_widths == [256, 256] and ikj.store_widths == [256]
    tile = hot_loop(REGISTER_TILE)
    assert tile.chains == [{"fma": 2}, {"fma": 1}]  # ymm9 twice an iteration, ymm8 once
    assert tile.width_bits == 256 and tile.fma_instructions == 3
    assert tile.load_widths == [256, 64]  # the broadcast reads one double
    embedded = hot_loop(".L3:\n\tvfmadd231pd\t(%rax){1to8}, %zmm1, %zmm0\n"
                        "\tvmovupd\t%zmm0, (%rdx)\n\taddq\t$8, %rax\n\tjne\t.L3\n")  # fmt: skip
    assert embedded.load_widths == [64] and embedded.store_widths == [512]
    # lea computes an address and touches no memory (numba's ijk loop has one)
    lea = hot_loop(".L5:\n\tleaq\t(%r12,%r12), %r13\n\tvmulsd\t(%r11), %xmm1, %xmm1\n"
                   "\tvaddsd\t%xmm1, %xmm0, %xmm0\n\taddq\t%r13, %r11\n\tjne\t.L5\n")  # fmt: skip
    assert lea.loads == 1 and lea.load_widths == [64]


def test_the_hot_loop_is_the_vectorised_main_loop():
    """An outer loop around a ymm FMA main loop and its scalar remainder: the main loop."""
    text = (
        ".L2:\n\tmovq\t%rax, %rdx\n"
        ".L3:\n\tvfmadd213pd\t(%rdx,%rax), %ymm2, %ymm1\n\taddq\t$32, %rax\n\tjne\t.L3\n"
        "\tvfmadd132sd\t(%rbx,%rax,8), %xmm3, %xmm0\n\tvmulsd\t%xmm1, %xmm2, %xmm3\n"
        "\tjne\t.L2\n"
    )
    found = hot_loop(text)
    assert (found.width_bits, found.fma_instructions, found.flops_per_instruction) == (256, 1, 8)
    assert found.hot_loop and found.instructions == 3
    scalar = hot_loop(".L1:\n\tmulsd\t%xmm1, %xmm0\n\taddsd\t%xmm0, %xmm2\n\tjne\t.L1\n")
    assert scalar.width_bits is None and scalar.flops_per_instruction == 1.0
    # nothing reloads xmm0 or xmm2: both carry their value to the next iteration
    assert scalar.chains == [{"fmul": 1}, {"fadd": 1}]
    assert hot_loop("\tmovq\t%rax, %rbx\n").fp_instructions == 0


def test_the_resident_inputs_are_one_physical_page_and_the_kernel_runs_on_them():
    import types

    import numpy as np

    from overhead_tui.kit.pages import RESIDENT_VALUE, resident_inputs
    from overhead_tui.worker.compiled_rung import time_resident
    from overhead_tui.worker.protocol import WorkerTask

    found = resident_inputs(64, "float64")
    if found is None:  # no memfd_create (not Linux, or a sandbox that forbids it)
        pytest.skip("pages cannot be aliased here: the model keeps the rest unexplained")
    a, b = found
    assert a.shape == b.shape == (64, 64) and float(a[63, 63]) == RESIDENT_VALUE
    b[0, 0] = 2.0  # one page: the same element every 512 doubles
    assert float(a[8, 0]) == 2.0 and float(b[16, 0]) == 2.0
    rung = types.SimpleNamespace(setup=lambda x, y: (x.copy(), y.copy()), kernel=np.matmul)
    spec = WorkerTask("run", "x", "x.py", n=64, min_sample_s=0.001)
    timing = time_resident(rung, spec)
    # up to five samples, three when they agree within 1 % (kit.probing.settled)
    assert timing is not None and timing.n == 64 and 3 <= len(timing.samples_s_per_fma) <= 5
    assert time_resident(rung, WorkerTask("run", "x", "x.py", n=64, dtype="int8")) is None
    placed = time_resident(rung, spec, np.ones((64, 64)), np.ones((64, 64)))
    assert placed is not None
    # timed on fresh copies where huge pages were granted, and only then
    huge = len(placed.huge_page_samples_s_per_fma)
    assert (3 <= huge <= 5) if placed.huge_page_share else huge == 0


def test_py_spy_and_scalene_lines_disagree_with_the_reason_on_the_recorded_loop():

    from overhead_tui.analysis.agreement import lines_disagreement

    recorded = fixture_summary(FIXTURES / "recorded_summary.json")
    profiled = next(r for r in recorded.scenarios if r.profile and "scalene" in r.profile.backends)
    note = lines_disagreement(profiled.profile)
    assert note is not None and note.startswith("py-spy: line 40 78%, 39 20%; Scalene: line 39")
    assert "eval-breaker" in note
    assert lines_disagreement(None) is None


def test_callgrinds_whole_call_count_is_the_second_instruction_count():
    from overhead_tui.analysis.agreement import attach_agreement
    from overhead_tui.summary.profile import CallgrindResult, ProfileRecord

    code = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}])
    result = _rung("o2", ["scalar_compute"], 0.9, code)
    result.breakdown = breakdown(result, _costs())
    result.profile = ProfileRecord(
        "o2", 64, backends={"callgrind": CallgrindResult("ok", n=24, instructions_per_fma=7.66)}
    )
    attach_agreement(result)
    q = result.breakdown.compiled
    assert (q.callgrind_instructions_per_fma, q.callgrind_n, q.instructions_per_fma) == (
        7.66,
        24,
        7.0,
    )


def test_a_rung_is_priced_at_the_peak_kernel_of_its_own_dtype():
    probes = {
        **PROBES,
        "dense_peak": {
            "value": 150.0,
            "details": {"one_thread_gflops": 75.0, "float32_one_thread_gflops": 150.0},
        },
        "precision_peak": {
            "value": 3000.0,
            "details": {"amx_bf16_one_core": 3000.0, "avx512_bf16_one_core": 100.0},
        },
    }
    costs = UnitCosts.from_probes(probe_records(probes))
    single = _rung("blas32", ["dense_kernel"], 0.02)
    single.dtype = "float32"
    assert breakdown(single, costs).layers["dense_kernel"] == pytest.approx(2 / 150 / 0.02)
    amx = _rung("amx", ["dense_kernel", "memory"], 0.002)
    amx.dtype = "bfloat16"
    assert breakdown(amx, costs).layers["dense_kernel"] == pytest.approx(2 / 3000 / 0.002)
    vector = _rung("dot", ["simd_compute", "memory"], 0.002)
    vector.dtype = "bfloat16"  # no FP instructions the reader counts: the dtype's best kernel
    assert breakdown(vector, costs).layers["simd_compute"] == pytest.approx(2 / 3000 / 0.002)


def test_the_waterfall_credits_a_compiled_step_from_the_measured_quantities():
    from overhead_tui.analysis.waterfall import METHODS, waterfall
    from overhead_tui.summary.records import RunSummary

    o2 = GeneratedCode("cc -S", 2, 0, None, 1.0, True, 7, 2.0, 2, 0, [{"fadd": 1}])
    ikj = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 6, 8.0, 2, 1, [])
    before = _rung("c_naive_O2", ["scalar_compute", "memory"], 0.9, o2, resident_ns=0.6)
    after = _rung("c_ikj", ["simd_compute", "memory"], 0.2, ikj, resident_ns=0.1)
    after.rung, after.removes = 2, ["scalar_compute"]
    for r in (before, after):
        r.breakdown = breakdown(r, _costs())
    step = waterfall(RunSummary(scenarios=[before, after]))[0]
    per_flop = 1e-9 / 2
    # scalar: the add chain 0.5 ns/FMA before, none after; SIMD: 0.075 ns/FMA of issue after;
    # memory: 0.3 ns/FMA beyond the resident time before, 0.1 after
    assert step.layers["scalar_compute"] == pytest.approx(0.5 * per_flop)
    assert step.layers["simd_compute"] == pytest.approx(-6 / 4 / 20 * per_flop)
    assert step.layers["memory"] == pytest.approx(0.2 * per_flop)
    assert step.changes["memory"].method == METHODS["memory"]
    assert step.declared == ["scalar_compute"] and step.contradiction == ""
    assert sum(step.layers.values()) == pytest.approx(step.saved_s_per_flop)


def test_xlas_machine_code_is_read_as_assembly_with_its_jumps_labelled():
    """objdump's text (addresses, ``jl 2d0 <call.9_kernel+0x2d0>``) becomes labelled assembly,
    and the hot loop found in it is XLA's innermost trip: one scalar FMA on a sum kept in
    XLA's buffer, the loop state stored back every trip."""
    from overhead_tui.kit.simd import labelled

    text = (FIXTURES / "asm" / "xla_fori_naive.objdump.txt").read_text()
    asm = labelled(text)
    assert ".L2d0:" in asm and "\tjl .L2d0" in asm and "<call.9_kernel" not in asm
    code = hot_loop(asm)
    assert code.hot_loop and code.fma_instructions == 1 and code.width_bits is None
    assert code.instructions == 41 and code.stores == 9  # the trip: 2d0 … jl 2d0
    # the running sum lives at (%rdx), which the loop never moves: FMA, store, reload
    assert code.chains == [{"stack_fadd": 1}]
    refill = ".L1:\n\tvmovsd\t(%rcx), %xmm1\n\tvfmadd213sd\t(%rdx), %xmm0, %xmm1\n"
    moving = hot_loop(refill + "\tvmovsd\t%xmm1, (%rdx)\n\taddq\t$8, %rdx\n\tjne\t.L1\n")
    assert moving.chains == []  # a new address every trip: nothing carried
    other = hot_loop(refill + "\tvmovsd\t%xmm2, (%rdx)\n\tdecl\t%ecx\n\tjne\t.L1\n")
    assert other.chains == []  # another register stored there: no sum carried through it
    assert labelled("no disassembly here") == ""


BF16_AND_VNNI = (
    ".LB:\n\tvmovdqa64\t(%rax), %zmm2\n"
    "\tvpbroadcastd\t(%rdx), %zmm1\n\tvdpbf16ps\t%zmm2, %zmm1, %zmm0\n"
    "\tvpbroadcastd\t4(%rdx), %zmm1\n\tvdpbf16ps\t%zmm2, %zmm1, %zmm3\n\tjne\t.LB\n"
    ".LV:\n\tvmovdqa64\t(%rax), %zmm2\n\tvpbroadcastd\t(%rdx), %zmm1\n"
    "\tvpdpbusd\t%zmm2, %zmm1, %zmm4\n\tjne\t.LV\n"
    ".LH:\n\tvfmadd231ph\t%zmm2, %zmm1, %zmm5\n\tjne\t.LH\n"
)


def test_the_lower_precision_dot_products_are_read_per_family():
    bf16 = hot_loop(BF16_AND_VNNI, ("amx_bf16", "avx512_bf16"))
    # 16 float32 lanes × 2 bfloat16 products × 2 operations
    assert (bf16.family, bf16.fp_instructions, bf16.flops_per_instruction) == ("avx512_bf16", 2, 64)
    assert bf16.chains == [{"fma": 1}, {"fma": 1}]
    vnni = hot_loop(BF16_AND_VNNI, ("amx_int8", "avx512_vnni"))
    assert (vnni.family, vnni.flops_per_instruction) == ("avx512_vnni", 128)  # 16 × 4 × 2
    fp16 = hot_loop(BF16_AND_VNNI, ("avx512_fp16",))
    assert (fp16.family, fp16.flops_per_instruction) == ("avx512_fp16", 64)  # 32 lanes × 2
    assert hot_loop(BF16_AND_VNNI, ("amx_bf16",)).fp_instructions == 0  # none of that family


def test_a_lower_precision_loop_is_priced_at_its_families_measured_rate():
    probes = {
        **PROBES,
        "precision_peak": {"value": 1.0, "details": {"avx512_bf16_one_core": 256.0}},
    }
    code = GeneratedCode(
        fp_instructions=16, fma_instructions=16, width_bits=512, flops_per_instruction=64.0,
        instructions=30, flops=1024.0, family="avx512_bf16",
    )  # fmt: skip
    result = _rung("bf16", ["simd_compute", "memory"], 0.01, code)
    result.dtype = "bfloat16"
    b = breakdown(result, UnitCosts.from_probes(probe_records(probes)))
    # 256 GFLOP/s over 64 flops an instruction: 4 instructions/ns; 16 per 512 multiply-adds
    assert b.predicted_ns_per_fma == pytest.approx(16 / 512 / 4)
    assert "avx512_bf16" in b.compiled.methods["fp_ns"]


def test_each_vector_width_is_priced_at_its_own_measured_fma_rate():
    """Zen 4 (measured 2026-12-06): 7.2 FMA instructions/ns at 128 and 256 bits, 3.7 at 512
    (its 512-bit FMAs run as two halves): a 512-bit loop is not twice a 256-bit one's speed."""
    details = {**PROBES["scalar_fma"]["details"], "fma_per_ns_256": 8.0, "fma_per_ns_512": 4.0}
    probes = {**PROBES, "scalar_fma": {"value": 1.0, "details": details}}
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.fma_rates == {256: 8.0, 512: 4.0}
    for width, lanes in ((256, 4), (512, 8)):
        code = GeneratedCode(
            fp_instructions=12, fma_instructions=12, width_bits=width,
            flops_per_instruction=2.0 * lanes, instructions=14, flops=24.0 * lanes,
        )  # fmt: skip
        b = breakdown(_rung(f"w{width}", ["simd_compute"], 1.0, code), costs)
        # 12 instructions per 12·lanes multiply-adds at the width's rate
        assert b.predicted_ns_per_fma == pytest.approx(1 / lanes / (8.0 if width == 256 else 4.0))
        assert f"{width}-bit FMAs" in b.compiled.methods["fp_ns"]


def test_placement_is_the_time_beyond_a_fresh_placement_and_memory_the_rest_beyond_l1():
    # measured 0.34 ns/FMA; A and B aligned on huge pages 0.15; resident in L1 0.13
    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 6, 8.0, 2, 1, [])
    rung = _rung("tiled", ["simd_compute", "memory"], 0.34, code, resident_ns=0.13)
    rung.resident = ResidentTiming(64, 4096, [0.13e-9] * 3, [0.15e-9] * 3, 1.0)
    b = breakdown(rung, _costs())
    memory = [r for r in b.rows if r.layer == "memory"]
    assert [r.ns_per_fma for r in memory] == pytest.approx([0.19, 0.02])
    assert "2 MiB pages, 64-byte aligned" in memory[0].unit and "resident in L1" in memory[1].unit
    assert b.compiled.placement_ns == pytest.approx(0.19)
    assert b.compiled.memory_ns == pytest.approx(0.02)
    # a fresh placement slower than the run: no placement cost, memory from the run's time
    rung.resident = ResidentTiming(64, 4096, [0.13e-9] * 3, [0.40e-9] * 3, 1.0)
    memory = [r for r in breakdown(rung, _costs()).rows if r.layer == "memory"]
    assert [r.ns_per_fma for r in memory] == pytest.approx([0.0, 0.21])


def test_huge_page_bytes_are_read_from_smaps_in_proportion_to_the_overlap():
    from overhead_tui.worker.compiled_rung import _huge_bytes

    smaps = (
        "7f0000000000-7f0000400000 rw-p 00000000 00:00 0\n"
        "Size:               4096 kB\n"
        "AnonHugePages:      4096 kB\n"
        "7f0000400000-7f0000800000 rw-p 00000000 00:00 0\n"
        "AnonHugePages:         0 kB\n"
    )
    base = 0x7F0000000000
    assert _huge_bytes(base, 4 << 20, smaps) == 4 << 20
    assert _huge_bytes(base + (2 << 20), 4 << 20, smaps) == 2 << 20  # half on huge pages
    assert _huge_bytes(base + (4 << 20), 1 << 20, smaps) == 0


def test_fresh_placement_copies_the_inputs_2mib_aligned_or_says_huge_pages_are_off():
    from pathlib import Path

    import numpy as np

    from overhead_tui.worker.compiled_rung import HUGE_PAGE, huge_page_inputs

    a = np.arange(512 * 512, dtype=np.float64).reshape(512, 512)
    found = huge_page_inputs(a, a * 2)
    mode = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if mode.exists() and "[never]" in mode.read_text():
        assert found is None  # nothing granted: no placement row, not a wrong one
        return
    if found is None:
        pytest.skip("transparent huge pages were not granted here (memory fragmented)")
    (x, y), share = found
    assert share >= 0.5
    assert np.array_equal(x, a) and np.array_equal(y, a * 2)
    assert x.ctypes.data % HUGE_PAGE == 0 and y.ctypes.data % HUGE_PAGE == 0


def test_the_cores_threads_got_are_set_by_the_slowest_busy_thread():
    from overhead_tui.worker.cpu_time import straggler_cores

    # recorded beside a busy loop on CPU 0 (Zen 4, 2026-12-06), 0.1 s of wall time: one
    # thread ran 88 ms and waited 10, the other ran 51 and waited 50; a pipe reader ran 1 ms
    before = {1: (0, 0), 2: (0, 0), 3: (0, 0)}
    after = {1: (88_000_000, 10_000_000), 2: (51_000_000, 50_000_000), 3: (1_000_000, 0)}
    assert straggler_cores(before, after, 0.1) == pytest.approx(2 * 51 / 101)
    # a quiet machine: both threads on a CPU all the time
    assert straggler_cores(before, {1: (99_000_000, 0), 2: (98_000_000, 0)}, 0.1) == 2.0
    assert straggler_cores(before, {4: (99_000_000, 0)}, 0.1) is None  # a thread born since
    assert straggler_cores({}, {}, 0.1) is None


def test_a_parallel_rung_is_priced_on_the_cores_its_slowest_thread_implies():
    # PROBES: 8 FMA instructions per ns on one core, 16 on all (two cores)
    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 2, 8.0, 0, 0, [])
    rung = _rung("par", ["simd_compute", "parallel"], 0.1, code)
    rung.sample_cores = [1.4, 1.4, 1.4]  # spinning at the barrier counts as CPU time
    rung.sample_thread_cores = [1.0, 1.02, 0.98]
    b = breakdown(rung, _costs())
    row = next(r for r in b.rows if r.layer == "simd_compute")
    assert b.compiled.fp_ns == pytest.approx(1 / 4 / 8)  # one core's rate × 1.0 cores
    assert row.unit.endswith("threads got 1.00 of 2 cores")
    rung.sample_thread_cores = []  # older files: the process's CPU over wall time
    assert breakdown(rung, _costs()).compiled.fp_ns == pytest.approx(1 / 4 / (8 * 1.4))


def test_c_tiled_loop_nest_is_counted_exactly_at_a_fixed_n():
    import shutil

    from overhead_tui.worker.loop_nest import count_loops

    if shutil.which("gcov") is None or shutil.which("cc") is None:
        pytest.skip("no gcc and gcov here: the loops around the hot loop stay unexplained")
    source = (FIXTURES.parent.parent / "scenarios" / "c_tiled.py").read_text()
    source = source.split('SOURCE = r"""', 1)[1].split('"""', 1)[0]
    nest = count_loops(source, ["-O3", "-march=native"], [], "float64", 64)
    assert nest is not None and nest.n == 64
    line, iterations, entries = nest.loops[0]
    # the j loop: 64³ multiply-adds, entered once per (i, k) of each 32 × 32 tile
    assert (iterations, entries) == (64**3, 64**3 // 32) and nest.entries(line) == 8192
    assert "crow[j] += aik * brow[j]" in source.splitlines()[line]  # the line after the for
    # an edge tile: n = 40 gives tiles of 32 and 8, the j loop entered once per (i, k, jj)
    edge = count_loops(source, ["-O3", "-march=native"], [], "float64", 40)
    assert edge is not None and edge.loops[0][1:] == [40**3, 40 * 40 * 2]
    assert count_loops("void f(void) {}", [], [], "float64", 8) is None  # another signature


def test_a_kernel_without_loops_of_its_own_is_not_built_for_counting(monkeypatch):
    """Eigen's product: its loops are in Eigen's headers, which gcov's report of the source
    does not count; the instrumented build (3.3 s) is not made."""
    import subprocess

    from overhead_tui.worker import loop_nest

    def no_build(*args, **kwargs):
        raise AssertionError("built a kernel with no loop of its own")

    monkeypatch.setattr(subprocess, "run", no_build)
    eigen = (FIXTURES.parent.parent / "scenarios" / "cpp_eigen.py").read_text()
    source = eigen.split('SOURCE = r"""', 1)[1].split('"""', 1)[0]
    assert loop_nest.MATMUL.search(source)  # the ladder's signature: only the loops are missing
    assert loop_nest.count_loops(source, ["-O2"], [], "float64", 16, "C++") is None


def test_loops_are_read_from_a_gcov_report_hot_loop_first():
    from overhead_tui.worker.loop_nest import loops_of

    report = {
        "files": [
            {
                "file": "kernel.c",
                "lines": [
                    {"line_number": 9, "count": 5, "branches": [{"count": 4}, {"count": 1}]},
                    {"line_number": 18, "branches": [{"count": 2048}, {"count": 64}]},
                    {"line_number": 19, "count": 2048, "branches": []},
                    {"line_number": 20, "branches": [{"count": 7}, {"count": 0}]},  # never left
                ],
            },
            {"file": "driver.c", "lines": [{"line_number": 1, "branches": [{"count": 9}] * 2}]},
        ]
    }
    nest = loops_of(report, 16)
    assert nest is not None and nest.loops == [[18, 2048, 64], [9, 4, 1]]
    assert loops_of({"files": []}, 16) is None


def test_each_entry_of_the_hot_loop_is_priced_at_the_probes_loop_entry_cost():
    from dataclasses import replace

    from overhead_tui.summary.measured import LoopNest

    probes = {**PROBES, "scalar_fma": {"value": 1.0, "details": {
        **PROBES["scalar_fma"]["details"], "loop_entry_ns": 1.25}}}  # fmt: skip
    costs = UnitCosts.from_probes(probe_records(probes))
    nest = LoopNest(64, [[17, 64**3, 64**3 // 32]])
    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 6, 8.0, 2, 1, [], loop_line=17,
                         loop_nest=nest)  # fmt: skip
    b = breakdown(_rung("tiled", ["simd_compute"], 0.3, code), costs)
    entry = next(r for r in b.rows if "entry of its hot loop" in r.unit)
    assert entry.events_per_fma == pytest.approx(1 / 32)
    assert entry.ns_per_fma == pytest.approx(1.25 / 32)
    assert b.compiled.loop_entries_per_fma == pytest.approx(1 / 32)
    # the hot loop's line not among the counted loops (an unrolled inner loop is): no row
    other = replace(code, loop_line=30)
    assert not any("entry of" in r.unit for r in breakdown(_rung("t", ["simd_compute"], 0.3,
                   other), costs).rows)  # fmt: skip
    # no loop nest counted (numba, clang): no row, the loops stay in the unexplained rest
    plain = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 6, 8.0, 2, 1, [])
    rows = breakdown(_rung("tiled", ["simd_compute"], 0.3, plain), costs).rows
    assert not any("entry of its hot loop" in r.unit for r in rows)


def test_the_hot_loops_source_line_is_its_closing_branchs_debug_line():
    asm = (
        ".L7:\n\t.loc 1 10 20\n\tvmovupd\t(%rdx,%rax), %zmm0\n\t.loc 1 10 13\n"
        "\tvfmadd213pd\t(%rcx,%rax), %zmm1, %zmm0\n\tvmovupd\t%zmm0, (%rcx,%rax)\n"
        "\t.loc 1 9 31\n\taddq\t$64, %rax\n\t.loc 2 3 1\n\tcmpq\t%rax, %rbx\n\tjne\t.L7\n"
    )
    assert hot_loop(asm).loop_line == 9  # file 2 is a header, not the kernel's source
    assert hot_loop(asm.replace("\t.loc 1 9 31\n", "").replace("\t.loc 1 10", "\t.loc 2 10"))\
        .loop_line is None  # fmt: skip


def test_a_parallel_rung_is_priced_on_the_cores_left_after_perfs_runtime_wait_share():
    from overhead_tui.summary.profile import PerfResult, ProfileRecord

    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 2, 8.0, 0, 0, [])
    rung = _rung("par", ["simd_compute", "parallel"], 0.1, code)
    rung.sample_thread_cores = [1.0, 1.0, 1.0]
    # recorded beside a busy loop: 65 % of perf's samples in libgomp's barrier waits
    rung.profile = ProfileRecord(backends={"perf": PerfResult(layers={"parallel": 0.65})})
    b = breakdown(rung, _costs())
    assert b.compiled.fp_ns == pytest.approx(1 / 4 / (8 * 0.35))
    row = next(r for r in b.rows if r.layer == "simd_compute")
    assert "threads got 1.00 of 2 cores, 0.35 working (perf: 65% of their samples" in row.unit
    # a library rung: its dense kernel at one thread's rate × the cores left working
    blas = _rung("blas", ["dense_kernel", "parallel"], 0.1)
    blas.sample_thread_cores, blas.profile = [1.0], rung.profile
    dense = next(r for r in breakdown(blas, _costs()).rows if r.layer == "dense_kernel")
    assert dense.unit_cost == pytest.approx(1 / (75.0 * 0.35))
    assert "0.35 cores it got working (perf: 65% waiting" in dense.unit
    rung.profile = None  # no perf profile: the cores the threads got, unreduced
    assert breakdown(rung, _costs()).compiled.fp_ns == pytest.approx(1 / 4 / 8)


def test_a_perf_profile_arriving_after_the_run_derives_a_parallel_rungs_breakdown_again():
    from overhead_tui.analysis.attribution import attach_profile
    from overhead_tui.summary.profile import PerfResult, ProfileRecord

    code = GeneratedCode("cc -S", 1, 1, 256, 8.0, True, 2, 8.0, 0, 0, [])
    rung = _rung("par", ["simd_compute", "parallel"], 0.1, code)
    rung.sample_thread_cores = [1.0]
    summary = RunSummary(scenarios=[rung], probes=probe_records(PROBES))
    rung.breakdown = breakdown(rung, _costs())
    assert rung.breakdown.compiled.fp_ns == pytest.approx(1 / 4 / 8)
    rung.profile = ProfileRecord(backends={"perf": PerfResult(layers={"parallel": 0.5})})
    attach_profile(rung, summary)
    assert rung.breakdown.compiled.fp_ns == pytest.approx(1 / 4 / 4)  # half its core working


def test_the_unit_cost_sources_table_names_every_measured_field_once():
    import dataclasses

    from overhead_tui.analysis.unit_costs import UNIT_COST_SOURCES

    fields = {f.name: f.type for f in dataclasses.fields(UnitCosts)}
    derived = {"numpy_call_ns", "mix_dispatch_ns", "mix_float_ns", "mix_load_ns", "mix_fit_error",
               "peak_one_gflops", "peak_all_gflops", "fp_issue_one", "fp_issue_all"}  # fmt: skip
    plain = {name for name, kind in fields.items() if kind == "float | None"}
    assert set(UNIT_COST_SOURCES) == plain - derived
    assert set(UNIT_COST_SOURCES) <= set(fields)
    # each read from its probe with its interval: a detail at the value's relative spread
    probes = {**PROBES, "scalar_fma": {"value": 1.0, "spread": 0.1, "details": {
        **PROBES["scalar_fma"]["details"], "loop_entry_ns": 1.25}}}  # fmt: skip
    costs = UnitCosts.from_probes(probe_records(probes))
    assert costs.loop_entry_ns == 1.25 and costs.issue_per_ns == 20.0
    assert costs.dispatch_ns == 1.5 and costs.interval("loop_entry_ns") is not None
