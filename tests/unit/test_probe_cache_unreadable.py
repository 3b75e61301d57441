"""A probe cache file that cannot be read is said before the probes are measured again (it
was dropped without a word), and a readable or absent one says nothing."""

from __future__ import annotations

from overhead_tui.commands.common import prepare_cache
from overhead_tui.engine.probe_runs import cache_path, unreadable_cache


def test_an_unreadable_probe_cache_is_said_and_a_good_one_is_not(tmp_path):
    path = tmp_path / "probes.json"
    assert unreadable_cache(path) is None  # absent: a first run, nothing to say
    path.write_text('{"entries": {}}', encoding="utf-8")
    assert unreadable_cache(path) is None
    path.write_text('{"entries": ', encoding="utf-8")
    assert "is not JSON" in (unreadable_cache(path) or "")
    path.write_text("[1, 2]", encoding="utf-8")
    assert "is not a cache file" in (unreadable_cache(path) or "")
    path.write_bytes(b"\xff\xfe\x00")
    assert "cannot read the probe cache" in (unreadable_cache(path) or "")


def test_a_command_says_so_before_it_measures():
    """``prepare_cache`` (every measuring command's first step) notes it, once."""
    cache = cache_path()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("not json", encoding="utf-8")
    said: list[str] = []
    prepare_cache(said.append)
    assert len(said) == 1 and said[0].startswith("overhead-tui: the probe cache")
    assert "the probes are measured again" in said[0]
