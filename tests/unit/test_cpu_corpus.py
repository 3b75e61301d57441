"""Every machine-derived decision replayed on each CPU of the corpus (``tests/fixtures/cpus/``).

Each folder holds a real machine's /proc/cpuinfo, its cache sizes, its probe results and what
was measured there by hand (``expect``); see ``tests/fixtures/cpus/README.md`` to add one.
The decisions: the micro-architecture row and FLOP/cycle, the ISA and accumulators of the
peak kernels, the theoretical peaks at the measured clock, the two-method fact checks and
their warnings, the impossible-result bound and the ``shapes`` default size.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from overhead_tui.kit.simd import best_isa, choose_accumulators, isa_target
from overhead_tui.machine import limits as limits_module
from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.machine.limits import IMPOSSIBLE_MARGIN, machine_limits, speed_bound
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary.probes import probe_records
from overhead_tui.sweeps.shapes import DEFAULT_SCENARIOS, default_weights_order

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "cpus"
MACHINES = sorted(p.name for p in CORPUS.iterdir() if (p / "machine.json").exists())


def _machine(name):
    record = json.loads((CORPUS / name / "machine.json").read_text())
    cpu = parse_cpuinfo((CORPUS / name / "cpuinfo.txt").read_text())
    return cpu, record


@pytest.fixture
def as_that_machine(monkeypatch):
    """Limits computed as on the corpus machine: its cores, no cgroup quota, no cpufreq."""

    def apply(cpu):
        monkeypatch.setattr(limits_module, "effective_cores", lambda quota: cpu.logical_cpus)
        monkeypatch.setattr(limits_module, "cgroup_cpu_quota", lambda: None)
        monkeypatch.setattr(limits_module, "max_clock_ghz", lambda: None)

    return apply


def test_the_corpus_has_at_least_four_cpu_families():
    assert len(MACHINES) >= 4
    families = {_machine(name)[0].microarchitecture for name in MACHINES}
    assert len(families) >= 3, families


@pytest.mark.parametrize("name", MACHINES)
def test_the_table_row_and_flop_per_cycle(name):
    cpu, record = _machine(name)
    expect = record["expect"]
    assert cpu.microarchitecture == expect["microarchitecture"]
    assert (cpu.fma_units, cpu.fma_width_bits) == (expect["fma_units"], expect["fma_width_bits"])
    assert cpu.flop_per_cycle("float64") == expect["flop_per_cycle_float64"]
    assert cpu.flop_per_cycle("float32") == expect["flop_per_cycle_float32"]


@pytest.mark.parametrize("name", MACHINES)
def test_the_peak_kernels_isa_and_accumulators(name):
    cpu, record = _machine(name)
    expect = record["expect"]
    isa = best_isa(cpu.isa)
    assert isa == expect["best_isa"]
    target = isa_target(isa)
    chosen = choose_accumulators(target.width_bits, target.registers, 8)
    assert chosen.vectors == expect["accumulators"] and chosen.vectors >= chosen.needed
    assert chosen.vectors + 4 <= target.registers  # operands stay in registers: no spill


@pytest.mark.parametrize("name", MACHINES)
def test_peaks_fact_checks_and_warnings(name, as_that_machine):
    cpu, record = _machine(name)
    expect = record["expect"]
    as_that_machine(cpu)
    limits = machine_limits(cpu, probe_records(record["probes"]))
    f64 = limits.peak_gflops["float64"]
    assert f64.theoretical == pytest.approx(expect["theoretical_float64"], rel=1e-3)
    assert f64.one_core_theoretical == pytest.approx(
        expect["one_core_theoretical_float64"], rel=1e-3
    )
    verdicts = {c.fact: c.agree for c in limits.fact_checks}
    for fact, agree in expect["facts_agree"].items():
        assert verdicts.get(fact) == agree, (fact, limits.fact_checks)
    for expected in expect.get("warnings", []):
        assert any(expected in w for w in limits.limit_warnings), (expected, limits.limit_warnings)
    if all(expect["facts_agree"].values()):
        assert not any(
            w.split(":")[0] in {"clock", "fma flop per cycle", "parallel cores"}
            for w in limits.limit_warnings
        ), limits.limit_warnings
    bound, how = speed_bound(cpu, probe_records(record["probes"]), "float64")
    # the bound is at the scalar clock; the theoretical peak at the clock under FMA load
    # (lower on cores with frequency licences: bound_float64 where they differ)
    bound_expected = expect.get("bound_float64", expect["theoretical_float64"])
    assert bound == pytest.approx(bound_expected, rel=1e-3)
    assert "measured clock" in how and IMPOSSIBLE_MARGIN > 1
    # a one-thread worker's bound (``cores_used`` 1): never below one core's theoretical peak,
    # so a one-thread rung at that peak is never called impossible on any CPU of the corpus
    one, _ = speed_bound(cpu, probe_records(record["probes"]), "float64", cores_used=1)
    assert one is not None and one >= expect["one_core_theoretical_float64"] * (1 - 1e-3)


@pytest.mark.parametrize("name", [m for m in MACHINES if "probes_landed" in _machine(m)[1]])
def test_what_the_landed_probes_read_is_now_flagged(name, as_that_machine):
    """The Emerald Rapids readings of the landed tool (clock 4.33 GHz from a folded chain,
    33.5 GFLOP/s from 256-bit code): flagged, and the narrow figure is not the SIMD roof."""
    cpu, record = _machine(name)
    as_that_machine(cpu)
    limits = machine_limits(cpu, probe_records(record["probes_landed"]))
    for expected in record["expect"]["warnings_landed"]:
        assert any(expected in w for w in limits.limit_warnings), (expected, limits.limit_warnings)
    assert limits.peak_gflops["float64"].one_core == record["expect"]["one_core_landed"]
    assert limits.peak_gflops["float64"].measured_by != "simd_fma"


@pytest.mark.parametrize("name", MACHINES)
def test_the_shapes_default_fits_the_default_scenarios(name, monkeypatch, tmp_path):
    _, record = _machine(name)
    expect = record["expect"]
    specs = [s for s in discover() if s.name in DEFAULT_SCENARIOS]
    smallest = min(specs, key=lambda s: s.max_size)
    order, reason = default_weights_order(record["caches"], 8, smallest.max_size, smallest.name)
    assert order == expect["shapes_order"] and order <= smallest.max_size
    assert ("clamped" in reason) == expect["shapes_clamped"]
    if expect["shapes_clamped"]:
        assert smallest.name in reason and "maximum" in reason
    # the command's own planning, with this machine's caches: no error before measuring
    from overhead_tui.cli import build_parser
    from overhead_tui.commands import shapes

    monkeypatch.setattr(shapes, "read_cache_sizes", lambda: record["caches"])
    monkeypatch.setattr(shapes, "available_memory_bytes", lambda: 16 * 2**30)
    args = build_parser().parse_args(["shapes", "--out", str(tmp_path / "run")])
    planned, _ = shapes.plan_shapes(args)
    assert {s.name for s in planned} == set(DEFAULT_SCENARIOS)
    k, n, _, _ = shapes.choose_shape(args, planned)
    assert k == n == expect["shapes_order"]
    assert isinstance(args, argparse.Namespace)


L1_HAND = [m for m in MACHINES if "l1_per_cycle_by_hand" in _machine(m)[1]["expect"]]


@pytest.mark.parametrize("name", L1_HAND)
def test_the_l1_rates_agree_with_those_measured_by_hand(name):
    """The L1 bound's rates (``scalar_fma``'s L1 kernels, per cycle at the probe's own clock)
    beside the same accesses timed by hand on that machine: within 20 % (a shared host moves
    by about 10 % between runs), and the bound they give the ikj loop at 512 bits (two loads
    and a store per eight multiply-adds) within 20 % of the hand figures' bound."""
    from overhead_tui.analysis.compiled import in_core_rows
    from overhead_tui.analysis.unit_costs import UnitCosts
    from overhead_tui.summary.measured import GeneratedCode
    from overhead_tui.summary.records import ScenarioResult

    _, record = _machine(name)
    details = record["probes"]["scalar_fma"]["details"]
    hand = record["expect"]["l1_per_cycle_by_hand"]
    for key, by_hand in hand.items():
        kind, width = key.rsplit("_", 1)
        measured = details[f"l1_{kind}_per_cycle_{width}"]
        assert measured == pytest.approx(by_hand, rel=0.2), key
    ikj = GeneratedCode("cc -S", 1, 1, 512, 16.0, True, 6, 16.0, 2, 1, [], [512] * 2, [512])
    result = ScenarioResult(name="ikj", title="ikj", rung=1, layers=["simd_compute"], removes=[],
                            n=64, dtype="float64", flops=2 * 64**3, status="ok")  # fmt: skip
    result.generated_code = ikj
    costs = UnitCosts.from_probes(probe_records(record["probes"]))
    _, quantities = in_core_rows(result, costs)
    ghz = record["probes"]["clock"]["value"]
    by_hand_cycles = max(2 / hand["loads_512"], 1 / hand["stores_512"], 3 / hand["mixed_512"]) / 8
    assert quantities.l1_ns * ghz == pytest.approx(by_hand_cycles, rel=0.2)


@pytest.mark.parametrize("name", MACHINES)
def test_the_cache_line_the_set_conflict_timing_assumes_is_each_cpus_own(name):
    """``spreading_order`` counts a row in 64-byte lines: each corpus CPU's ``cache_alignment``
    (x86's /proc/cpuinfo; the Arm core's Neoverse N1 TRM gives 64 bytes, cpuinfo has none)."""
    import re

    from overhead_tui.worker.compiled_rung import LINE_BYTES

    text = (CORPUS / name / "cpuinfo.txt").read_text()
    lines = {int(x) for x in re.findall(r"^cache_alignment\s*:\s*(\d+)", text, re.M)}
    assert lines <= {LINE_BYTES}, lines
