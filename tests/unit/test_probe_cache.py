"""The probe cache keeps one entry per key: alternating interpreters reuse each one's values."""

from __future__ import annotations

import dataclasses
import json

from overhead_tui.engine import probe_runs
from overhead_tui.engine.probe_runs import ProbeResult, read_cache, write_cache


def _results(value: float) -> dict[str, ProbeResult]:
    return {
        "dispatch": ProbeResult(
            "dispatch", "dispatch", "ns/dispatch", "interpreter_dispatch", value=value
        )
    }


def test_two_interpreters_keep_their_entries(tmp_path):
    cache = tmp_path / "probes.json"
    write_cache("py311", _results(2.0), cache)
    write_cache("py313", _results(1.5), cache)
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    assert read_cache("py313", cache)["dispatch"].value == 1.5
    assert read_cache("other", cache) is None


def test_one_key_file_is_read_and_kept(tmp_path):
    cache = tmp_path / "probes.json"
    old = {"key": "py311", "probes": {"dispatch": dataclasses.asdict(_results(2.0)["dispatch"])}}
    cache.write_text(json.dumps(old), encoding="utf-8")
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    write_cache("py312", _results(1.8), cache)
    assert read_cache("py311", cache)["dispatch"].value == 2.0
    data = json.loads(cache.read_text(encoding="utf-8"))
    assert data["key"] == "py312"  # the newest entry, where a one-key reader looks


def test_oldest_entries_dropped(tmp_path, monkeypatch):
    monkeypatch.setattr(probe_runs, "CACHE_ENTRIES", 2)
    cache = tmp_path / "probes.json"
    for i, key in enumerate(["a", "b", "c"]):
        write_cache(key, _results(float(i)), cache)
    assert read_cache("a", cache) is None
    assert read_cache("b", cache)["dispatch"].value == 1.0
    write_cache("b", _results(5.0), cache)  # rewriting b makes it the newest
    write_cache("d", _results(3.0), cache)
    assert read_cache("c", cache) is None
    assert read_cache("b", cache)["dispatch"].value == 5.0
