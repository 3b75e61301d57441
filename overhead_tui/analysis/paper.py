"""The published ladder (Leiserson et al. 2020, Table 1) beside this machine's.

The table is data (``data/leiserson2020.toml``, with its source); :func:`compare` maps each of
its rows to our closest rung and puts the paper's absolute speedup (time of version 1 over the
row's time, at n = 4096) beside ours (``python_naive``'s time per flop over the rung's time per
flop, each rung at its own n: scaled per flop, not measured at 4096).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Any

from overhead_tui.summary.records import RunSummary


@dataclass(frozen=True)
class PaperRow:
    """One row of the published table beside our mapped rung."""

    version: int
    implementation: str
    paper_speedup: float
    paper_gflops: float
    our_rung: str
    note: str
    our_speedup: float | None
    our_gflops: float | None
    our_status: str


def load_table() -> dict[str, Any]:
    """The published table as data: source, n, machine, peak_gflops and ``rows``."""
    text = resources.files("overhead_tui").joinpath("data/leiserson2020.toml").read_text("utf-8")
    return tomllib.loads(text)


def compare(summary: RunSummary) -> list[PaperRow]:
    """Each published row beside our mapped rung (speedups over the first rung, per flop)."""
    table = load_table()
    base = summary.scenario(table["rows"][0]["our_rung"])
    base_per_flop = (
        base.median_s / base.flops
        if base is not None and base.has_speed and base.median_s
        else None
    )
    rows = []
    for row in table["rows"]:
        ours = summary.scenario(row["our_rung"])
        speedup = gflops = None
        status = "not run" if ours is None else ours.status
        if ours is not None and ours.has_speed and ours.median_s and base_per_flop:
            speedup = base_per_flop / (ours.median_s / ours.flops)
            gflops = ours.gflops
        rows.append(
            PaperRow(
                row["version"],
                row["implementation"],
                float(row["absolute_speedup"]),
                float(row["gflops"]),
                row["our_rung"],
                row["note"],
                speedup,
                gflops,
                status,
            )
        )
    return rows
