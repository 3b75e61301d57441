"""One CSV row per scenario, for spreadsheets and pandas."""

from __future__ import annotations

import csv
import io

from overhead_tui.export.base import Exporter
from overhead_tui.summary.records import RunSummary

COLUMNS: tuple[str, ...] = (
    "rung",
    "name",
    "title",
    "n",
    "dtype",
    "flops",
    "status",
    "median_s",
    "min_s",
    "iqr_s",
    "stdev_s",
    "cv",
    "gflops",
    "vs_dense",
    "ns_per_fma",
    "compile_s",
    "loops",
    "samples",
    "worker_processes",
    "max_abs_error",
    "steal_fraction",
    "warnings",
    "error",
    "layers",
    "removes",
)
"""Column order; times in seconds, gflops in GFLOP/s, cv and steal_fraction as fractions;
``samples`` were taken in ``worker_processes`` worker processes."""


class CsvExporter(Exporter):
    """CSV with a header row; lists are joined with ``;``; missing values are empty."""

    output_file_extensions = (".csv",)

    def render(self, summary: RunSummary) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for s in summary.scenarios:
            row = {
                **{c: getattr(s, c, None) for c in COLUMNS},
                "samples": len(s.samples_s),
                "worker_processes": s.sample_processes,
                "warnings": "; ".join(s.warnings),
                "layers": ";".join(s.layers),
                "removes": ";".join(s.removes),
            }
            writer.writerow(["" if row[c] is None else row[c] for c in COLUMNS])
        return out.getvalue()
