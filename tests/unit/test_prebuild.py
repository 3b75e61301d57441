"""What a run builds before anything is timed (``engine.prebuild``), and a build worker."""

from __future__ import annotations

import sys

from overhead_tui.engine.prebuild import builds, prebuild
from overhead_tui.engine.spawn import Cancel
from overhead_tui.plugins.probes import discover_probes
from overhead_tui.plugins.scenarios import discover, read_spec
from overhead_tui.summary.records import Settings

HEADER = (
    'TITLE = "t"\nRUNG = 1\nLAYERS = ()\nDEFAULT_SIZE = 8\nMAX_SIZE = 8\nSOURCE = "x"\nFLAGS = []\n'
)
"""A scenario that declares SOURCE (so a run builds it first) and defines its own kernel."""


def _drained(generator):
    """(the events a generator yielded, the value it returned)."""
    events = []
    try:
        while True:
            events.append(next(generator))
    except StopIteration as stop:
        return events, stop.value


def test_the_rungs_that_compile_and_the_probes_that_prepare_are_built_first():
    specs = {s.name: s for s in discover()}
    chosen = [specs[n] for n in ("python_naive", "c_naive_O2", "cython_typed", "c_amx_tiles")]
    probes = discover_probes()
    assert {p.name for p in probes if p.builds} >= {"boxing", "container_access"}
    wanted = builds(chosen, Settings(dtype="float64"), probes)
    names = [b.name for b in wanted]
    # python_naive compiles nothing; c_amx_tiles builds at its own bfloat16 beside float64
    assert set(names) == {p.name for p in probes if p.builds} | {
        "c_naive_O2",
        "cython_typed",
        "c_amx_tiles",
    }
    modes = {b.name: b.task.mode for b in wanted}
    assert modes["boxing"] == "build_probe" and modes["c_naive_O2"] == "build"
    assert {b.name: b.task.dtype for b in wanted}["c_amx_tiles"] == "bfloat16"
    # a run whose probes are cached builds only its rungs; cython_typed has no float32
    rungs_only = builds(chosen, Settings(dtype="float32"), [])
    assert {b.name for b in rungs_only} == {"c_naive_O2", "c_amx_tiles"}


def test_build_workers_run_a_probes_prepare_and_a_rungs_setup_at_once(tmp_path):
    """Two real build workers: a probe file's ``prepare()`` and a scenario's ``setup`` each
    leave their mark; a third waits for a free slot (two at a time)."""
    (tmp_path / "probes").mkdir()
    probe = tmp_path / "probes" / "probe_marks.py"
    mark = tmp_path / "prepared"
    probe.write_text(
        'NAME = "marks"\nTITLE = "t"\nUNIT = "ns"\nLAYER = "boxing"\n'
        f"def prepare():\n    open({str(mark)!r}, 'w').write('built')\n"
        "def measure(ctx):\n    raise RuntimeError('not timed here')\n"
    )
    scenario = tmp_path / "marked.py"
    set_up = tmp_path / "set_up"
    scenario.write_text(
        HEADER + "def setup(a, b):\n"
        f"    open({str(set_up)!r}, 'w').write(str(a.shape))\n    return a, b\n"
        "def kernel(a, b):\n    return a @ b\n"
    )
    spec = read_spec(scenario)
    assert spec.builds
    from overhead_tui.plugins.probes import discover_probes as found_in

    (probe_spec,) = found_in(tmp_path / "probes")
    assert probe_spec.builds
    wanted = builds([spec], Settings(), [probe_spec])
    events, results = _drained(prebuild(wanted, sys.executable, Cancel(), jobs=2))
    assert [e.name for e in events] == ["marks", "marked"] and events[0].jobs == 2
    assert {name: r.returncode for name, r in results.items()} == {"marks": 0, "marked": 0}
    assert mark.read_text() == "built" and set_up.read_text() == "(8, 8)"


def test_a_failed_build_is_left_to_the_timed_worker(tmp_path):
    scenario = tmp_path / "broken.py"
    scenario.write_text(
        HEADER + "def setup(a, b):\n    raise ValueError('no compiler today')\n"
        "def kernel(a, b):\n    return a @ b\n"
    )
    _, found = _drained(prebuild(builds([read_spec(scenario)], Settings(), []), sys.executable,
                                 Cancel()))  # fmt: skip
    (result,) = found.values()
    assert result.returncode != 0 and "no compiler today" in result.stdout + result.stderr


def test_each_build_workers_outcome_is_named():
    """The ``prebuilt`` log line names what each build worker did, from its exit and its
    messages: a rung that cannot run here is not a failed build."""
    from overhead_tui.engine.prebuild import build_outcome
    from overhead_tui.engine.spawn import CommandResult
    from overhead_tui.summary.measured import BuildInfo
    from overhead_tui.worker.protocol import Build, Error

    def ended(code, *messages):
        return CommandResult(code, False, "", "", list(messages))

    assert build_outcome(ended(0, Build(BuildInfo(cached=False)))) == "built"
    assert build_outcome(ended(0, Build(BuildInfo(cached=True)))) == "cached"
    assert build_outcome(ended(0)) == "prepared"  # a probe's prepare(): no build record
    assert build_outcome(ended(3, Error(cause="unavailable", message="no AMX"))) == "unavailable"
    assert build_outcome(ended(3, Error(cause="setup", message="syntax error"))) == "failed"
    assert build_outcome(ended(-9)) == "stopped"
    assert build_outcome(CommandResult(-9, True, "", "")) == "timed_out"


def test_a_build_that_hangs_is_killed_after_the_runs_timeout(tmp_path):
    scenario = tmp_path / "hangs_building.py"
    scenario.write_text(
        HEADER + "def setup(a, b):\n    import time\n    time.sleep(60)\n"
        "def kernel(a, b):\n    return a @ b\n"
    )
    from overhead_tui.engine.prebuild import build_outcome

    _, found = _drained(prebuild(builds([read_spec(scenario)], Settings(), []), sys.executable,
                                 Cancel(), timeout_s=1.0))  # fmt: skip
    (result,) = found.values()
    assert build_outcome(result) == "timed_out"


def test_a_c_rung_requires_cffi_so_a_worker_without_it_skips_it_with_the_fix(tmp_path):
    declared = tmp_path / "declared_c.py"
    declared.write_text(HEADER.replace("SOURCE", "REQUIRES = ('numpy',)\nSOURCE"))
    assert read_spec(declared).requires == ("numpy", "cffi")
    specs = {s.name: s for s in discover()}
    assert "cffi" in specs["c_naive_O2"].requires and "cffi" not in specs["python_naive"].requires
