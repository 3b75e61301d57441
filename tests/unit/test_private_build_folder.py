"""A build runs in a private folder of the cache; one left by a worker killed mid-build (a
timeout, Ctrl-C) is removed by a later build, one of a build still running is not."""

from __future__ import annotations

import os
import time

from overhead_tui.kit.folders import STALE_BUILD_S, private_build_folder


def test_a_killed_build_s_folder_goes_and_a_running_one_stays(tmp_path):
    stale, running = tmp_path / "overhead-py-killed", tmp_path / "overhead-py-running"
    stale.mkdir()
    (stale / "rung.c").write_text("int x;")
    running.mkdir()
    old = time.time() - STALE_BUILD_S - 60
    os.utime(stale, (old, old))
    other = tmp_path / "overhead-cc-old"  # another kind of build's: not this prefix's
    other.mkdir()
    os.utime(other, (old, old))
    with private_build_folder(tmp_path, "overhead-py-") as tmp:
        assert os.path.isdir(tmp) and os.path.basename(tmp).startswith("overhead-py-")
    assert not stale.exists() and running.exists() and other.exists()
    assert not os.path.exists(tmp)
