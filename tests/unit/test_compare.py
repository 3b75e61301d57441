"""Comparing two runs: the rank test on fixed samples, ratios, statuses and differing settings."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import pytest

from overhead_tui.analysis.compare import SettingDifference, compare_runs, rank_test
from overhead_tui.present.compare_text import (
    comparison_cells,
    detail_text,
    difference_lines,
    facts_lines,
    run_notes,
)
from overhead_tui.summary.records import RunSummary
from tests.conftest import RECORDED_SUMMARY, SWEEP_SUMMARY, fixture_summary, remeasured

SEPARATED_A = [1.0, 1.1, 1.2, 1.3, 1.4]
SEPARATED_B = [2.0, 2.1, 2.2, 2.3, 2.4]
OVERLAPPING_A = [1.0, 2.0, 3.0, 4.0, 5.0]
OVERLAPPING_B = [3.5, 4.5, 5.5, 6.5, 7.5]


def recorded_run() -> RunSummary:
    """The recorded 21-rung run (a fresh copy each time)."""
    return fixture_summary(RECORDED_SUMMARY)


def set_samples(run: RunSummary, name: str, samples: list[float], n: int | None = None) -> None:
    """Give scenario ``name`` these samples (s), their median and, optionally, another n."""
    sizes = {} if n is None else {"n": n, "flops": 2 * n**3}
    result = remeasured(run, name, samples_s=tuple(samples), **sizes)
    result.median_s = sorted(samples)[len(samples) // 2]


def changed_run() -> RunSummary:
    """Run B of the app and snapshot tests: another Python and every kind of row.

    python_naive 1.25× slower, python_hoisted 0.8× (faster), numpy_scalar_loop at n = 24
    (per flop), c_tiled invalid, numba_naive with two samples, numpy_einsum only in A,
    an extra rung only in B; the rest unchanged (not significant).
    """
    run = recorded_run()
    run.machine.python.version = "3.12.8"
    run.machine.python.executable = "/opt/python3.12/bin/python3"
    for name, factor in (("python_naive", 1.25), ("python_hoisted", 0.8)):
        result = run.scenario(name)
        set_samples(run, name, [s * factor for s in result.samples_s])
    loop = run.scenario("numpy_scalar_loop")
    set_samples(run, "numpy_scalar_loop", [s / 8 * 1.1 for s in loop.samples_s], n=24)
    tiled = run.scenario("c_tiled")
    tiled.status, tiled.error, tiled.median_s = "invalid", "element (3, 4) is off by 0.5", None
    numba = run.scenario("numba_naive")
    set_samples(run, "numba_naive", numba.samples_s[:2])
    run.scenarios = [s for s in run.scenarios if s.name != "numpy_einsum"]
    extra = replace(
        run.scenario("numpy_matmul"), name="numpy_matmul_float32", rung=22, dense_kernel=False
    )
    run.scenarios.append(extra)
    return run


def row_named(comparison, name):
    return next(r for r in comparison.rows if r.name == name)


# -- the statistic on fixed samples ----------------------------------------------------------


def test_clearly_separated_samples_give_the_exact_mann_whitney_p():
    u_statistic, p_value = rank_test(SEPARATED_A, SEPARATED_B)
    # every A below every B: U = 0; exact two-sided p = 2 / C(10, 5) = 2 / 252
    assert u_statistic == 0.0
    assert p_value == pytest.approx(2 / 252)
    u_reversed, p_reversed = rank_test(SEPARATED_B, SEPARATED_A)
    assert u_reversed == 25.0 and p_reversed == pytest.approx(2 / 252)


def test_overlapping_samples_are_significant_only_at_a_looser_alpha():
    # three (a, b) pairs with a > b: U = 3; P(U <= 3) = 7 / 252, two-sided 14 / 252 = 0.0556
    assert rank_test(OVERLAPPING_A, OVERLAPPING_B) == (3.0, pytest.approx(14 / 252))
    a, b = recorded_run(), recorded_run()
    set_samples(a, "python_naive", OVERLAPPING_A)
    set_samples(b, "python_naive", OVERLAPPING_B)
    assert not row_named(compare_runs(a, b), "python_naive").significant
    loose = row_named(compare_runs(a, b, alpha=0.1), "python_naive")
    assert loose.significant and loose.verdict == "slower"


def test_identical_distributions_are_not_significant():
    row = row_named(compare_runs(recorded_run(), recorded_run()), "python_naive")
    assert row.p_value == pytest.approx(1.0)
    assert row.u_statistic == pytest.approx(7 * 7 / 2)
    assert row.ratio == pytest.approx(1.0)
    assert not row.significant and row.verdict == "not significant"
    assert rank_test([1.0] * 5, [1.0] * 5) == (12.5, 1.0)


def test_fewer_than_three_samples_are_not_tested():
    assert rank_test([1.0, 1.1], SEPARATED_B) is None
    a, b = recorded_run(), recorded_run()
    set_samples(b, "python_naive", [2.0, 2.1])
    row = row_named(compare_runs(a, b), "python_naive")
    assert row.p_value is None and row.u_statistic is None and not row.significant
    assert row.ratio is not None and row.verdict == "too few samples"
    assert row.note == "2 samples in B; the test needs 3"
    set_samples(a, "python_naive", [1.0])
    both = row_named(compare_runs(a, b), "python_naive")
    assert both.note == "1 sample in A and 2 samples in B; the test needs 3"


# -- ratios and statuses ---------------------------------------------------------------------


def test_ratio_is_b_over_a_and_significant_rows_say_which_way():
    a, b = recorded_run(), recorded_run()
    set_samples(a, "python_naive", SEPARATED_A)
    set_samples(b, "python_naive", SEPARATED_B)
    slower = row_named(compare_runs(a, b), "python_naive")
    assert slower.ratio == pytest.approx(2.2 / 1.2)
    assert slower.significant and slower.verdict == "slower"
    faster = row_named(compare_runs(b, a), "python_naive")
    assert faster.ratio == pytest.approx(1.2 / 2.2) and faster.verdict == "faster"
    assert comparison_cells(slower)[1:6] == ("1.2 s", "2.2 s", "1.83×", "0.008", "slower")


def test_a_different_n_is_compared_per_flop():
    a, b = recorded_run(), recorded_run()
    naive = a.scenario("python_naive")
    assert naive.n == 128
    # n = 64: 1/8 of the flops; times 1/4 of A's, so twice as slow per flop
    set_samples(b, "python_naive", [s / 4 for s in naive.samples_s], n=64)
    row = row_named(compare_runs(a, b), "python_naive")
    assert row.per_flop and (row.n_a, row.n_b) == (128, 64)
    assert row.ratio == pytest.approx(2.0)
    assert row.significant and row.verdict == "slower"  # the test also runs on time per flop
    assert row.note == "n differs: 128 vs 64, compared per flop"
    # per call, B's median is the smaller one: the per-call ratio would say the opposite
    assert row.median_b_s < row.median_a_s
    assert "B/A 2.00× per flop" in detail_text(row)


def test_a_rung_without_a_speed_shows_its_status_and_no_ratio():
    a, b = recorded_run(), recorded_run()
    invalid = b.scenario("c_tiled")
    invalid.status, invalid.median_s = "invalid", None
    row = row_named(compare_runs(a, b), "c_tiled")
    assert row.ratio is None and row.p_value is None and not row.significant
    assert row.median_b_s is None and row.note == "invalid in B"
    assert row.verdict == "not compared"
    assert comparison_cells(row)[1:6] == ("42.8 ms", "invalid", "—", "—", "not compared")
    skipped = row_named(compare_runs(a, b), "torch_matmul")
    assert skipped.ratio is None and skipped.note == "skipped in A and B"


def test_rungs_in_only_one_run_are_listed_by_name():
    comparison = compare_runs(recorded_run(), changed_run())
    assert comparison.only_in_a == ["numpy_einsum"]
    assert comparison.only_in_b == ["numpy_matmul_float32"]
    assert "numpy_einsum" not in {r.name for r in comparison.rows}
    assert len(comparison.rows) == 20


def test_alpha_must_be_between_0_and_1():
    for alpha in (0.0, 1.0, -0.1, 5.0):
        with pytest.raises(ValueError, match="alpha"):
            compare_runs(recorded_run(), recorded_run(), alpha=alpha)


# -- settings and machine facts that differ --------------------------------------------------


def test_same_run_has_no_differences():
    assert compare_runs(recorded_run(), recorded_run()).differences == []


def test_a_different_python_and_dtype_are_listed():
    a, b = recorded_run(), recorded_run()
    b.machine.python.version = "3.12.8"
    b.machine.python.executable = "/opt/python3.12/bin/python3"
    b.settings.python = "/opt/python3.12/bin/python3"
    b.settings.dtype = "float32"
    b.settings.size = 256
    b.machine.blas = replace(b.machine.blas, threads=1)
    differences = compare_runs(a, b).differences
    assert differences == [
        SettingDifference("machine.python.version", "3.11.7", "3.12.8"),
        ("machine.python.executable", "/work/main/.venv/bin/python3", b.settings.python),
        ("machine.blas.threads", 2, 1),
        ("settings.dtype", "float64", "float32"),
        ("settings.size", None, 256),
    ]
    lines = difference_lines(compare_runs(a, b))
    assert "settings.dtype: float64 (A) → float32 (B)" in lines
    assert "settings.size: each scenario's own (A) → 256 (B)" in lines
    assert "machine.blas.threads: 2 (A) → 1 (B)" in lines


def test_another_machine_is_listed():
    a, b = recorded_run(), recorded_run()
    b.machine.cpu_model = "Intel Xeon Platinum 8480+"
    b.machine.logical_cpus = b.machine.effective_cpus = 8
    b.machine.blas = replace(b.machine.blas, architecture="SapphireRapids")
    fields = [d.field for d in compare_runs(a, b).differences]
    assert fields == [
        "machine.cpu_model",
        "machine.logical_cpus",
        "machine.effective_cpus",
        "machine.blas.architecture",
    ]


def test_a_machine_fact_only_one_run_recorded_is_not_a_difference():
    # numba's version is recorded only when a numba rung ran
    a, b = recorded_run(), recorded_run()
    a.machine.numba_version = None
    comparison = compare_runs(a, b)
    assert comparison.differences == []
    assert comparison.recorded_only == [("machine.numba_version", None, "0.68.1")]
    assert facts_lines(comparison) == [
        "settings that differ: none",
        "recorded only in B: machine.numba_version = 0.68.1",
    ]
    a.machine.numba_version = "0.60.0"  # recorded in both and different: a difference
    assert compare_runs(a, b).recorded_only == []
    assert [d.field for d in compare_runs(a, b).differences] == ["machine.numba_version"]


def sweep_run() -> RunSummary:
    """The recorded default sweep (a fresh copy each time)."""
    return fixture_summary(SWEEP_SUMMARY)


def test_a_sweep_is_named_in_the_header_and_its_size_reads_swept():
    a, b = recorded_run(), sweep_run()
    a.settings.size = 64
    comparison = compare_runs(a, b)
    assert (comparison.sweep_a, comparison.sweep_b) == (False, True)
    assert run_notes(comparison) == [
        "B is a size sweep: each rung at its largest measured n "
        "(or at the failed point that ended it)"
    ]
    lines = difference_lines(comparison)
    assert "settings.size: 64 (A) → swept (B)" in lines
    assert "sweep.budget_s: not a sweep (A) → 60 (B)" in lines
    assert run_notes(compare_runs(b, a))[0].startswith("A is a size sweep: ")
    assert run_notes(compare_runs(b, sweep_run()))[-1].startswith("A and B are size sweeps: ")
    assert run_notes(compare_runs(recorded_run(), changed_run())) == []


def test_two_sweeps_list_their_sizes_budget_and_whether_they_finished():
    a, b = sweep_run(), sweep_run()
    b.sweep = replace(b.sweep, sizes=[8, 16, 32], budget_s=10.0)
    b.finished = False
    comparison = compare_runs(a, b)
    assert [d.field for d in comparison.differences] == [
        "sweep.sizes",
        "sweep.budget_s",
        "finished",
    ]
    assert difference_lines(comparison) == [
        "sweep.sizes: 8, 16, 32, 64, 128, 256, 512, 1024 (A) → 8, 16, 32 (B)",
        "sweep.budget_s: 60 (A) → 10 (B)",
        "finished: yes (A) → no (B)",
    ]


def test_the_same_run_twice_is_said_to_be_one_run():
    same = compare_runs(recorded_run(), recorded_run())
    assert same.same_run
    assert run_notes(same) == ["note: A and B are the same run (identical summaries)"]
    assert not compare_runs(recorded_run(), changed_run()).same_run
    other = recorded_run()
    other.created = "2026-11-30T10:00:00+00:00"  # another run with equal results
    assert not compare_runs(recorded_run(), other).same_run


def test_the_comparison_modules_do_not_import_textual():
    code = (
        "import sys, overhead_tui.analysis.compare, overhead_tui.commands.compare; "
        "assert not {'textual', 'rich'} & set(sys.modules), 'textual imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_naming_the_same_interpreter_with_python_is_no_difference():
    a, b = recorded_run(), recorded_run()
    b.settings.python = a.machine.python.executable  # --python with the interpreter A used
    assert compare_runs(a, b).differences == []


def test_a_sweep_against_a_run_at_default_sizes_lists_the_size():
    a, b = recorded_run(), fixture_summary(SWEEP_SUMMARY)
    assert a.settings.size is None and b.settings.size is None
    sizes = [d for d in compare_runs(a, b).differences if d[0] == "settings.size"]
    assert sizes == [("settings.size", None, "swept")]


def test_three_samples_against_three_cannot_be_significant_and_say_so():
    """The exact rank test's smallest p for 3 and 3 samples is 0.1: at α 0.05 a tenfold
    slowdown is "too few samples" with how many repeats could tell, never "not significant";
    with 4 and 4 the same slowdown is significant."""
    from overhead_tui.analysis.compare import samples_to_reach, smallest_p

    assert smallest_p(3, 3) == pytest.approx(0.1) and samples_to_reach(0.05) == 4
    for count, verdict in ((3, "too few samples"), (4, "slower")):
        a, b = recorded_run(), recorded_run()
        samples = [0.01 * (1 + i / 100) for i in range(count)]
        set_samples(a, "python_naive", samples)
        set_samples(b, "python_naive", [s * 10 for s in samples])
        row = row_named(compare_runs(a, b), "python_naive")
        assert row.verdict == verdict, (count, row.note)
    a, b = recorded_run(), recorded_run()
    set_samples(a, "python_naive", [0.01, 0.0101, 0.0102])
    set_samples(b, "python_naive", [0.1, 0.101, 0.102])
    row = row_named(compare_runs(a, b), "python_naive")
    assert "3 and 3 samples: the rank test cannot reach p < 0.05" in row.note
    assert "--repeats 4 or more" in row.note
