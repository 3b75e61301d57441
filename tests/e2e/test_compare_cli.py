"""``overhead-tui compare A B`` on saved runs: the table, the differences, bad input."""

from __future__ import annotations

import json
import re

from overhead_tui.cli import main
from tests.conftest import FIXTURES, RECORDED_SUMMARY, fixture_summary
from tests.unit.test_compare import SWEEP_SUMMARY, changed_run


def write_runs(tmp_path):
    """Run A (the recorded run, as a run directory) and run B (changed, as a summary file)."""
    run_dir = tmp_path / "run-a"
    run_dir.mkdir()
    (run_dir / "summary.json").write_text(RECORDED_SUMMARY.read_text())
    path_b = tmp_path / "b.json"
    changed_run().save(path_b)
    return run_dir, path_b


def columns(line):
    return re.split(r"\s{2,}", line.strip())


def table_rows(out):
    """The table's rows by scenario name: the lines after the header, up to the blank line."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("scenario"))
    end = lines.index("", start)
    return {columns(line)[0]: columns(line) for line in lines[start + 1 : end]}


def test_compare_prints_rows_differences_and_rungs_in_one_run(tmp_path, capsys):
    run_a, path_b = write_runs(tmp_path)
    assert main(["compare", str(run_a), str(path_b)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"A: {run_a}" and lines[1] == f"B: {path_b}"
    header = next(line for line in lines if line.startswith("scenario"))
    assert columns(header) == ["scenario", "A median", "B median", "B/A", "p", "verdict", "note"]
    rows = table_rows(out)
    assert rows["python_naive"][1:] == ["98.3 ms", "123 ms", "1.25×", "<0.001", "slower"]
    assert rows["python_hoisted"][3:] == ["0.80×", "<0.001", "faster"]
    assert rows["c_tiled"][1:] == ["42.8 ms", "invalid", "—", "—", "not compared", "invalid in B"]
    assert "not significant" in rows["python_zip_sum"]
    assert "settings that differ:" in lines
    assert "  machine.python.version: 3.11.7 (A) → 3.12.8 (B)" in lines
    assert "only in A: numpy_einsum" in lines
    assert "only in B: numpy_matmul_float32" in lines


def test_the_same_run_twice_has_nothing_significant(capsys):
    assert main(["compare", str(RECORDED_SUMMARY), str(RECORDED_SUMMARY)]) == 0
    out = capsys.readouterr().out
    assert "settings that differ: none" in out
    verdicts = [row[5] for row in table_rows(out).values()]
    assert verdicts.count("not significant") == 20  # every ok rung
    assert verdicts.count("not compared") == 1  # torch_matmul, skipped in both


def test_a_run_directory_and_its_own_summary_are_the_same_run(tmp_path, capsys):
    run_a, path_b = write_runs(tmp_path)
    assert main(["compare", str(run_a), str(run_a / "summary.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "note: A and B are the same run (identical summaries)"
    assert main(["compare", str(run_a), str(path_b)]) == 0
    assert "same run" not in capsys.readouterr().out


def test_a_sweep_says_so_and_lists_what_only_one_run_recorded(tmp_path, capsys):
    sweep = fixture_summary(SWEEP_SUMMARY)
    sweep.machine.numba_version = None  # as when no numba rung ran
    sweep.save(tmp_path / "sweep.json")
    assert main(["compare", str(RECORDED_SUMMARY), str(tmp_path / "sweep.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("B is a size sweep: each rung at its largest measured n")
    assert "  sweep.sizes: not a sweep (A) → 8, 16, 32, 64, 128, 256, 512, 1024 (B)" in lines
    # numba's version recorded on one side only is not a difference
    assert not any("numba_version" in line and "→" in line for line in lines)
    assert "recorded only in A: machine.numba_version = 0.68.1" in lines


def test_alpha_changes_what_is_significant(tmp_path, capsys):
    run_a, path_b = write_runs(tmp_path)
    assert main(["compare", str(run_a), str(path_b), "--alpha", "1e-9"]) == 0
    out = capsys.readouterr().out
    assert "significant when p < 1e-09" in out
    verdicts = {row[5] for row in table_rows(out).values()}
    # no rank test of 7 and 7 samples can reach 1e-9: none is called "not significant"
    assert verdicts == {"not compared", "too few samples"}
    assert "the rank test cannot reach p < 1e-09" in out and "--repeats 17 or more" in out


def test_a_corrupt_summary_is_one_line_and_exit_2(tmp_path, cli):
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema_version": 2, "scenarios": [')
    proc = cli("compare", RECORDED_SUMMARY, broken)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("overhead-tui: error:") and "is not JSON" in proc.stderr


def test_a_summary_that_fails_the_schema_is_exit_2(tmp_path, capsys):
    data = json.loads(RECORDED_SUMMARY.read_text())
    data["scenarios"][0]["status"] = "fast"
    invalid = tmp_path / "invalid.json"
    invalid.write_text(json.dumps(data))
    assert main(["compare", str(invalid), str(RECORDED_SUMMARY)]) == 2
    assert "invalid summary at scenarios.0.status" in capsys.readouterr().err


def test_a_combined_interpreters_summary_says_to_compare_its_runs(capsys):
    combined = FIXTURES / "interpreters_summary.json"
    assert main(["compare", str(RECORDED_SUMMARY), str(combined)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{combined} is a combined summary of `overhead-tui interpreters`" in err
    assert "fix: compare two of the run directories it lists" in err


def test_a_missing_file_is_exit_2(tmp_path, cli):
    proc = cli("compare", RECORDED_SUMMARY, tmp_path / "nope.json")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cannot read" in proc.stderr


def test_a_bad_alpha_is_exit_2(cli):
    proc = cli("compare", RECORDED_SUMMARY, RECORDED_SUMMARY, "--alpha", "2")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not between 0 and 1" in proc.stderr


def test_app_without_a_terminal_says_so(cli):
    proc = cli("compare", RECORDED_SUMMARY, RECORDED_SUMMARY, "--app")
    assert proc.returncode == 2 and "needs a terminal" in proc.stderr


def test_runs_without_a_rung_in_common_are_one_line_and_exit_2(tmp_path, cli):
    run_a = fixture_summary(RECORDED_SUMMARY)
    run_b = fixture_summary(RECORDED_SUMMARY)
    run_a.scenarios = run_a.scenarios[:2]
    run_b.scenarios = run_b.scenarios[2:]
    run_a.save(tmp_path / "a.json")
    run_b.save(tmp_path / "b.json")
    proc = cli("compare", tmp_path / "a.json", tmp_path / "b.json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert "no scenario in common" in proc.stderr
    assert run_a.scenarios[0].name in proc.stderr
