"""A worker's stderr log is capped after it exits (engine.run_log.cap_log)."""

from __future__ import annotations

from overhead_tui.engine.run_log import cap_log


def test_a_flooded_log_keeps_its_first_and_last_part_and_says_what_was_cut(tmp_path):
    log = tmp_path / "flood.stderr.txt"
    log.write_bytes(b"START\n" + b"x" * 10_000 + b"\nTraceback: the end\n")
    size = log.stat().st_size
    cut = cap_log(log, keep=1000)
    text = log.read_bytes()
    assert cut == size - 2000
    assert text.startswith(b"START\n") and text.endswith(b"Traceback: the end\n")
    assert f"{cut:,} bytes of this worker's stderr cut here".encode() in text
    assert len(text) < 2000 + 200


def test_a_short_log_is_left_as_it_is(tmp_path):
    log = tmp_path / "quiet.stderr.txt"
    log.write_bytes(b"one line\n")
    assert cap_log(log, keep=1000) == 0 and log.read_bytes() == b"one line\n"
    assert cap_log(tmp_path / "absent.txt") == 0
