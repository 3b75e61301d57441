from __future__ import annotations

import csv
import io

import pytest

from overhead_tui.errors import UsageError
from overhead_tui.export import EXPORTERS, export, exporter_for
from overhead_tui.summary.records import RunSummary
from tests.conftest import RECORDED_SUMMARY, fixture_summary, remeasured


@pytest.fixture
def summary():
    return fixture_summary(RECORDED_SUMMARY)


def _failed(summary):
    python_naive = summary.scenarios[0]
    python_naive.status, python_naive.error = "invalid", "element (1, 2) is off by 0.001"
    python_naive.median_s = python_naive.gflops = python_naive.vs_dense = None
    return summary


@pytest.mark.parametrize("cls", EXPORTERS.values(), ids=lambda c: c.__name__)
def test_renders_empty_run(cls):
    text = cls().render(RunSummary(created="2026-01-01T00:00:00"))
    assert text.endswith("\n")


@pytest.mark.parametrize("cls", EXPORTERS.values(), ids=lambda c: c.__name__)
def test_failed_scenario_shows_status_not_speed(cls, summary):
    text = cls().render(_failed(summary))
    assert "invalid" in text


def test_json_round_trips(summary, tmp_path):
    path = export(summary, tmp_path / "out.json")
    assert RunSummary.load(path).to_json() == summary.to_json()


def test_markdown_report(summary):
    text = EXPORTERS["markdown"]().render(_failed(summary))
    assert text.startswith("# overhead-tui")
    assert "| rung | scenario |" in text
    row = next(x for x in text.splitlines() if x.startswith("| 1 | python_naive"))
    assert "GFLOP" not in row and row.count("—") >= 4 and row.endswith("invalid |")
    assert "**python_naive**: invalid — element (1, 2)" in text
    assert "| 21 | numpy_matmul | 1024 |" in text


def test_csv_rows(summary):
    rows = list(csv.DictReader(io.StringIO(EXPORTERS["csv"]().render(summary))))
    assert [r["name"] for r in rows][:2] == ["python_naive", "python_hoisted"]
    dense = rows[-1]
    assert float(dense["vs_dense"]) == pytest.approx(1.0)
    assert float(dense["gflops"]) == pytest.approx(summary.scenarios[-1].gflops)
    assert int(dense["samples"]) == summary.settings.repeats
    assert dense["worker_processes"] == "1"  # absent from the file: one


def test_csv_says_how_many_worker_processes_took_the_samples(summary):
    remeasured(summary, summary.scenarios[0].name, worker_processes=3)
    rows = list(csv.DictReader(io.StringIO(EXPORTERS["csv"]().render(summary))))
    assert rows[0]["worker_processes"] == "3"


def test_format_from_extension_and_errors(tmp_path):
    assert type(exporter_for(tmp_path / "a.md")).__name__ == "MarkdownExporter"
    assert type(exporter_for(tmp_path / "a.CSV", "csv")).__name__ == "CsvExporter"
    with pytest.raises(UsageError, match="cannot tell"):
        exporter_for(tmp_path / "a.txt")
    (tmp_path / "a_file").write_text("")
    with pytest.raises(UsageError, match="cannot write"):
        export(RunSummary(), tmp_path / "a_file" / "y.json")


def test_durations_that_round_to_zero_print_as_zero_not_minus_zero():
    from overhead_tui.summary.units import fmt_seconds

    assert fmt_seconds(-1e-13) == "0 ns" and fmt_seconds(0.0) == "0 ns"
    assert fmt_seconds(-123e-9) == "-123 ns" and fmt_seconds(-0.25) == "-250 ms"


def test_an_unstable_rungs_explained_share_carries_its_cv(summary):
    """A rung timed with a CV of 10 % or more says so beside its explained share, in the
    Markdown report and in the text the Breakdown tab shows; a steady one does not."""
    from overhead_tui.present.format import unstable_explained

    steady = next(s for s in summary.scenarios if s.breakdown is not None)

    def breakdown_row():
        lines = EXPORTERS["markdown"]().render(summary).splitlines()
        return next(x for x in lines if x.startswith(f"| {steady.name} |") and " % " in x)

    steady.cv = 0.02
    assert unstable_explained(steady) is None and "unstable" not in breakdown_row()
    steady.cv = 0.13
    assert "CV 13" in unstable_explained(steady)
    assert "(unstable: CV 13" in breakdown_row()
