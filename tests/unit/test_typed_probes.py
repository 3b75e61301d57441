"""Probes and a rung's worker-reported parts (BLAS libraries, counted events, bytecode, build)
as typed records: older files load into them and write back exactly the JSON they held."""

from __future__ import annotations

import dataclasses
import json

import pytest

from overhead_tui.analysis.attribution import interpreted_rows
from overhead_tui.analysis.unit_costs import UnitCosts
from overhead_tui.engine.probe_runs import read_cache, write_cache
from overhead_tui.engine.results import apply_message
from overhead_tui.summary.codec import ABSENT, from_json, to_json
from overhead_tui.summary.measured import BlasLibrary, BuildInfo, BytecodeLine, EventsPerFma
from overhead_tui.summary.probes import ProbeResult, probe_records
from overhead_tui.summary.records import RunSummary, ScenarioResult
from overhead_tui.worker.protocol import from_dict
from tests.conftest import FIXTURES

SUMMARIES = [p for p in sorted(FIXTURES.glob("*summary*.json")) if "interpreters" not in p.name]
PARTS = {
    "blas": BlasLibrary,
    "events_per_fma": EventsPerFma,
    "bytecode": BytecodeLine,
    "build": BuildInfo,
}


@pytest.mark.parametrize("path", SUMMARIES, ids=lambda p: p.name)
def test_recorded_probes_and_worker_parts_are_records_and_write_back_unchanged(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    summary = RunSummary.load(path)
    saved = json.loads(summary.dumps())
    assert all(isinstance(p, ProbeResult) for p in summary.probes.values())
    assert saved.get("probes", {}) == data.get("probes", {})
    scenarios = zip(data["scenarios"], saved["scenarios"], summary.scenarios, strict=True)
    for old, new, result in scenarios:
        for key, record in PARTS.items():
            value = getattr(result, key)
            for item in value if isinstance(value, list | tuple) else [value]:
                assert item is None or isinstance(item, record), key
            assert new.get(key) == old.get(key, new.get(key)), key


def test_an_old_probe_keeps_out_the_keys_it_lacked_and_a_fresh_one_writes_every_key():
    old = from_json(ProbeResult, {"name": "dispatch", "value": 2.0, "samples": [2.0]})
    assert old.interval is ABSENT and old.other_cpu_fraction is ABSENT
    assert set(to_json(old)) == {
        "name",
        "title",
        "unit",
        "layer",
        "value",
        "spread",
        "samples",
        "details",
        "error",
    }
    fresh = ProbeResult("p", "p", "ns", "x", interval=None, detail_intervals={})
    fresh.other_cpu_fraction = fresh.measured_at = None
    assert to_json(fresh) == dataclasses.asdict(fresh)  # every key, as the tool wrote them


def test_the_cache_reads_back_the_records_it_wrote(tmp_path):
    cache = tmp_path / "probes.json"
    results = probe_records(
        {
            "simd_fma": {
                "name": "simd_fma",
                "value": 40.0,
                "details": {"isa": "avx2", "spills": False, "one_core_gflops": 20.0},
                "interval": [39.0, 41.0],
                "detail_intervals": {"one_core_gflops": [19.0, 21.0]},
                "other_cpu_fraction": 0.1,
            },
            "clock": {"name": "clock", "value": 3.0},  # an entry from before the intervals
        }
    )
    write_cache("k", results, cache)
    assert read_cache("k", cache) == results
    stored = json.loads(cache.read_text(encoding="utf-8"))["probes"]
    assert "interval" not in stored["clock"] and stored["simd_fma"]["interval"] == [39.0, 41.0]


def test_a_cache_entry_that_is_not_probe_records_is_stale(tmp_path):
    cache = tmp_path / "probes.json"
    cache.write_text(json.dumps({"key": "k", "probes": {"dispatch": 2.0}}), encoding="utf-8")
    assert read_cache("k", cache) is None


def test_events_from_before_array_counts_price_like_none():
    costs = UnitCosts.from_probes(
        probe_records({"dispatch": {"value": 2.0}, "boxing": {"value": 5.0}})
    )
    old = from_json(EventsPerFma, {"dispatches": 10.0, "floats": 2.0, "by_opcode": {}})
    assert old.array_loads is ABSENT and "array_loads" not in to_json(old)
    new = dataclasses.replace(old, array_loads=0.0, array_stores=0.0, numpy_scalars=0.0)
    assert interpreted_rows(old, costs) == interpreted_rows(new, costs)


def test_a_rung_keeps_its_counted_events_bytecode_and_build_as_records():
    result = ScenarioResult("r", "r", 1, [], [], 64, "float64", 2 * 64**3)
    per_fma = {"bytecodes": 12.5, "n": 64, "counted_sizes": [4, 6, 8, 10], "by_opcode": {"X": 1.0}}
    line = {"code": "kernel", "offset": 12, "opname": "LOAD_FAST", "arg": "a", "per_fma": 2.0}
    apply_message(result, from_dict({"kind": "counted", "per_fma": per_fma, "bytecode": [line]}))
    build = {"compiler": "cc", "flags": ["-O2"], "cached": True, "vectorization": []}
    apply_message(result, from_dict({"kind": "build", "info": build}))
    assert result.events_per_fma == EventsPerFma(
        bytecodes=12.5, n=64, counted_sizes=[4, 6, 8, 10], by_opcode={"X": 1.0}
    )
    assert to_json(result.events_per_fma) == {
        "bytecodes": 12.5,
        "dispatches": 0.0,
        "python_calls": 0.0,
        "builtin_calls": 0.0,
        "numpy_calls": 0.0,
        "floats": 0.0,
        "n": 64,
        "counted_sizes": [4, 6, 8, 10],
        "by_opcode": {"X": 1.0},
    }
    assert result.bytecode == (BytecodeLine("kernel", 12, "LOAD_FAST", "a", 2.0),)
    assert result.build is not None and result.build.cached and result.build.flags == ["-O2"]
    apply_message(result, from_dict({"kind": "counted", "per_fma": {}}))  # under four sizes
    assert result.events_per_fma is None
