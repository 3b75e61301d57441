"""One atomic write for summaries, interpreter summaries and the probe cache."""

import pytest

from overhead_tui.summary import codec
from overhead_tui.summary.codec import write_atomic


def test_the_new_text_replaces_the_old_readable_by_all(tmp_path):
    path = tmp_path / "new folder" / "summary.json"
    write_atomic(path, "old\n")
    write_atomic(path, "new\n")
    assert path.read_text() == "new\n" and path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in path.parent.iterdir()] == ["summary.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "probes.json"
    write_atomic(path, "old\n")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(codec.os, "replace", fail)
    with pytest.raises(OSError):
        write_atomic(path, "new\n")
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["probes.json"]
