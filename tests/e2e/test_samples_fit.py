"""Samples that cannot fit in the worker's timeout are refused before anything runs."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli


@pytest.mark.parametrize("command", ["run", "sweep", "shapes"])
def test_samples_longer_than_the_timeout_are_refused_with_the_fix(command, tmp_path):
    out = tmp_path / "out"
    proc = run_cli(command, "--repeats", "1000", "--min-time", "1", "--timeout", "60", "--out", out)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert (
        "--repeats 1000 samples of at least --min-time 1 s take 1e+03 s, longer than "
        "--timeout 60 s; fix: fewer --repeats or a longer --timeout"
    ) in lines[0]
    assert not out.exists()


def test_the_apps_settings_check_refuses_samples_longer_than_the_timeout():
    from overhead_tui.commands.common import settings_problem
    from overhead_tui.summary.records import Settings

    slow = Settings(repeats=1000, min_sample_s=1.0, timeout_s=60.0, scenarios=["python_naive"])
    assert "longer than --timeout 60 s; fix: fewer --repeats" in (settings_problem(slow) or "")
    assert settings_problem(Settings(scenarios=["python_naive"])) is None
