"""CPU quota parsing for cgroup v1 and v2, on fake cgroup trees."""

from __future__ import annotations

import pytest

from overhead_tui.machine.cgroup import cgroup_cpu_quota, effective_cores, parse_cfs, parse_cpu_max


@pytest.mark.parametrize(
    ("text", "cores"),
    [("max 100000\n", None), ("150000 100000\n", 1.5), ("50000 100000", 0.5), ("200000", 2.0)],
)
def test_cpu_max(text, cores):
    assert parse_cpu_max(text) == cores


@pytest.mark.parametrize("text", ["", "a b c", "100 0", "x 100000"])
def test_cpu_max_rejects_malformed_text(text):
    with pytest.raises(ValueError):
        parse_cpu_max(text)


def test_cfs_v1():
    assert parse_cfs("-1\n", "100000\n") is None
    assert parse_cfs("250000\n", "100000\n") == 2.5
    with pytest.raises(ValueError):
        parse_cfs("100", "0")


def test_v2_tree_takes_the_tightest_quota_up_the_hierarchy(tmp_path):
    (tmp_path / "outer" / "inner").mkdir(parents=True)
    (tmp_path / "outer" / "cpu.max").write_text("100000 100000\n")  # 1 core
    (tmp_path / "outer" / "inner" / "cpu.max").write_text("300000 100000\n")  # 3 cores
    assert cgroup_cpu_quota(tmp_path, "0::/outer/inner\n") == 1.0


def test_v1_tree_and_no_limit(tmp_path):
    group = tmp_path / "cpu" / "docker" / "abc"
    group.mkdir(parents=True)
    (group / "cpu.cfs_quota_us").write_text("150000\n")
    (group / "cpu.cfs_period_us").write_text("100000\n")
    text = "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n"
    assert cgroup_cpu_quota(tmp_path, text) == 1.5
    (group / "cpu.cfs_quota_us").write_text("-1\n")
    assert cgroup_cpu_quota(tmp_path, text) is None


def test_malformed_or_missing_files_mean_no_limit(tmp_path):
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "cpu.max").write_text("garbage here now\n")
    assert cgroup_cpu_quota(tmp_path, "0::/g\n") is None
    assert cgroup_cpu_quota(tmp_path / "absent", "") is None


def test_effective_cores_is_the_smaller_of_affinity_and_quota():
    assert effective_cores(None, 8) == 8.0
    assert effective_cores(1.5, 8) == 1.5
    assert effective_cores(16.0, 4) == 4.0
