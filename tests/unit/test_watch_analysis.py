"""What ``watch`` says between two saves, on fixed measurements."""

from __future__ import annotations

from overhead_tui.analysis.watch import Version, change, ladder_place, layer_changes, sparkline
from overhead_tui.summary.records import RunSummary, ScenarioResult


def _version(samples, layers=None):
    return Version("12:00:00", "ok", None, samples, 1.0, layers or {})


def test_a_clearly_faster_save_is_faster_and_noise_is_no_detectable_change():
    before = _version([0.100, 0.101, 0.102, 0.099, 0.100, 0.103, 0.101])
    after = _version([0.070, 0.071, 0.069, 0.072, 0.070, 0.071, 0.070])
    assert change(before, after) == "faster (1.44× the last's speed), p = 0.002"  # U = 49
    assert change(after, before) == "slower (1.44× the last's time), p = 0.002"
    # a 72× slowdown is said as 72×, not as 0.01× of something
    slow = _version([x * 72 for x in before.samples_s])
    assert change(before, slow).startswith("slower (72× the last's time)")
    same = _version([0.1005, 0.0995, 0.1015, 0.1, 0.1025, 0.099, 0.1008])
    assert change(before, same).startswith("no detectable change (p = ")
    assert change(_version([0.1]), after) == ""  # too few samples to test


def test_each_layer_is_said_to_move_or_not_largest_change_first():
    before = _version([0.1] * 5, {"interpreter_dispatch": 20.0, "boxing": 10.0})
    after = _version([0.07] * 5, {"interpreter_dispatch": 11.8, "boxing": 10.4, "memory": 1.0})
    assert layer_changes(before, after) == [
        "interpreter_dispatch −41%",
        "memory new",
        "boxing unchanged",
    ]
    assert layer_changes(before, _version([0.1] * 5)) == []  # no breakdown: nothing said
    # a layer that was about nothing: its change in ns, not a percentage of about nothing
    tiny = _version([0.1] * 5, {"interpreter_dispatch": 20.0, "call_overhead": 1e-6})
    grown = _version([0.1] * 5, {"interpreter_dispatch": 20.0, "call_overhead": 2.5})
    assert layer_changes(tiny, grown) == [
        "call_overhead new (1e-06 → 2.5 ns per FMA)",
        "interpreter_dispatch unchanged",
    ]


def _rung(name, gflops, dense=False):
    r = ScenarioResult(name=name, title=name, rung=1, layers=[], removes=[], n=8,
                       dtype="float64", flops=2 * 8**3, status="ok")  # fmt: skip
    r.median_s, r.samples_s, r.gflops, r.dense_kernel = 1e-3, [1e-3], gflops, dense
    return r


def test_the_place_on_the_ladder_names_its_neighbours_and_the_dense_kernel():
    ladder = RunSummary(
        scenarios=[
            _rung("python_naive", 0.04),
            _rung("cython_untyped", 0.1),
            _rung("numpy_matmul", 100.0, dense=True),
        ]
    )
    place = ladder_place(0.06, ladder, "mine")
    assert (
        place
        == "between python_naive (0.04) and cython_untyped (0.1); 1,667× from the dense kernel"
    )
    assert ladder_place(500.0, ladder, "mine").startswith("above numpy_matmul (100)")
    assert ladder_place(0.06, None, "mine") == ""


def test_sparkline_runs_from_the_lowest_to_the_highest():
    assert sparkline([3.0, 1.0, 2.0]) == "█▁▅"
    assert sparkline([1.0, 1.0]) == "▁▁" and sparkline([]) == ""


def test_too_few_samples_are_said_rather_than_no_change():
    from overhead_tui.analysis.watch import smallest_p

    assert smallest_p(3, 3) == 0.1 and smallest_p(5, 5) < 0.01
    slow, fast = (
        Version("a", "ok", samples_s=[3.0, 3.1, 3.2]),
        Version("b", "ok", samples_s=[1.0, 1.1, 1.2]),
    )
    assert change(slow, fast).startswith("too few samples to tell (3 and 3")


def test_a_compile_error_s_line_names_the_error_not_only_the_tool():
    from overhead_tui.present.watch_text import history_markdown, reason

    built = Version(
        "a",
        "error",
        "BuildError: /usr/bin/cc failed:\nrung.c:2:5: error: 'oops' undeclared\n1 error",
    )
    assert reason(built) == "BuildError: /usr/bin/cc failed: rung.c:2:5: error: 'oops' undeclared"
    assert "'oops' undeclared" in history_markdown([built])
