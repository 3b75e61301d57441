"""The Machines screen: this machine's limits beside reference hardware, and a tile calculator."""

from __future__ import annotations

from rich import box
from rich.table import Table
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label, Static

from overhead_tui.analysis.roofline import ridge_point
from overhead_tui.machine.limits import roofline_bandwidth
from overhead_tui.machine.reference import (
    machine_ridge_point,
    peak_of,
    reference_machines,
    tile_table,
    times_below,
    user_reference_path,
)
from overhead_tui.present.format import (
    FACT_CHECK_HEADER,
    PRECISION_HEADER,
    fact_check_rows,
    per_core_claims,
    precision_rows,
)
from overhead_tui.summary.records import RunSummary
from overhead_tui.summary.units import fmt_gflops, fmt_number, fmt_ratio
from overhead_tui.tui.screens.base import SummaryScreen

DEFAULT_TILE = 64
"""Tile order shown first in the calculator."""
OTHER_PEAKS = {"fp16_tensor_gflops": "FP16 tensor", "fp16_amx_gflops": "FP16 AMX"}


class MachinesScreen(SummaryScreen):
    """Reference machines against this one and the rungs; a tile calculator under them."""

    CSS_PATH = "machines.tcss"

    def __init__(self, summary: RunSummary) -> None:
        super().__init__(summary)
        self.dtype = summary.settings.dtype
        self.machines, self.error = reference_machines()

    @property
    def own_peak(self) -> float | None:
        """This machine's measured compute peak at the run's dtype (GFLOP/s)."""
        peak = self.summary.machine.peak_gflops.get(self.dtype)
        return peak.measured if peak else None

    @property
    def own_ridge(self) -> float | None:
        """This machine's ridge point: measured peak / measured bandwidth (flops/byte)."""
        return ridge_point(self.own_peak, roofline_bandwidth(self.summary.machine.bandwidth_gbs))

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="body"):
            yield Static(self._this_machine(), id="this-machine")
            if self.summary.machine.fact_checks:
                yield Static(self._fact_checks(), id="fact-checks")
            if self.summary.machine.precision_peaks:
                yield Static(self._precision_peaks(), id="precision-peaks")
            if self.error:
                yield Static(f"[b]Reference file error:[/] {self.error}", id="reference-error")
            yield Static(self._reference(), id="reference")
            with Horizontal(id="tile-row"):
                yield Label("Tile order T (tab to it, type a number):")
                yield Input(str(DEFAULT_TILE), type="integer", id="tile", max_length=6)
            yield Static(id="tiles")

    def on_mount(self) -> None:
        self._show_tiles(DEFAULT_TILE)
        # the tile field is not focused on arrival: it would take every letter key, and the
        # key bar (which lists only the keys that work) would show esc alone; tab reaches it

    def on_input_changed(self, event: Input.Changed) -> None:
        try:
            tile = int(event.value)
        except ValueError:
            tile = 0
        if not 1 <= tile <= 100_000:
            self.query_one("#tiles", Static).update("T must be a whole number from 1 to 100,000.")
            return
        self._show_tiles(tile)

    def _this_machine(self) -> str:
        m = self.summary.machine
        peak = m.peak_gflops.get(self.dtype)
        if peak is None:
            return (
                f"This machine: {m.cpu_model}. No measured limits in this summary "
                "(run with probes, or `overhead-tui machine`)."
            )
        return (
            f"This machine: {m.cpu_model} ({m.microarchitecture or 'unknown'}), "
            f"{fmt_number(m.effective_cores)} effective cores. {self.dtype}: theoretical "
            f"{peak.formula or '—'}; measured {fmt_gflops(peak.measured)} GFLOP/s "
            f"({peak.measured_by or '—'}); memory "
            f"{fmt_number(roofline_bandwidth(m.bandwidth_gbs))} GB/s; ridge point "
            f"{fmt_number(self.own_ridge)} flop/B."
            + "".join(f"\nWarning: {w}" for w in m.limit_warnings)
        )

    def _fact_checks(self) -> Table:
        table = Table(
            *FACT_CHECK_HEADER,
            title="Machine facts, each measured two ways",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for row in fact_check_rows(self.summary.machine.fact_checks):
            style = "bold red" if row[-1] == "DISAGREE" else None
            table.add_row(*row, style=style)
        return table

    def _precision_peaks(self) -> Table:
        table = Table(
            *PRECISION_HEADER,
            title="Lower precisions and matrix engines, measured on this machine (per core "
            "per cycle beside what the family should do)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for row in precision_rows(self.summary.machine.precision_peaks):
            table.add_row(*row)
        claims = per_core_claims(self.machines)
        if claims:
            table.caption = "Published, per core and cycle: " + "; ".join(claims)
            table.caption_justify = "left"
        return table

    def _reference(self) -> Table:
        rungs = [
            r
            for r in (self.summary.scenario("python_naive"), self.summary.dense)
            if r is not None and r.has_speed and r.gflops
        ]
        precision = "FP64" if self.dtype == "float64" else "FP32"
        others = [
            f"{m.name}: {label} {fmt_gflops(m.figure(key))}"
            for m in self.machines
            for key, label in OTHER_PEAKS.items()
            if m.figure(key)
        ]
        table = Table(
            title=f"Reference hardware, {precision} peaks (vendor figures; add your own in "
            f"{user_reference_path()})",
            title_justify="left",
            header_style="bold",
            box=box.SIMPLE_HEAD,
            caption="× ours: their peak over this machine's measured one; × <rung>: how many "
            "times the rung's GFLOP/s is below their peak ("
            + ", ".join(f"#{r.rung} {r.name}" for r in rungs)
            + ")."
            + (f" Other peaks: {'; '.join(others)} GFLOP/s." if others else ""),
            caption_justify="left",
        )
        headers = [
            "machine",
            "GFLOP/s",
            "GB/s",
            "ridge",
            "× ours",
            *(f"× #{r.rung}" for r in rungs),
        ]
        for header in headers:
            table.add_column(
                header,
                justify="left" if header == "machine" else "right",
                no_wrap=header != "machine",
                ratio=1 if header == "machine" else None,
            )
        for machine in self.machines:
            peak = peak_of(machine, self.dtype)
            table.add_row(
                machine.name,
                fmt_gflops(peak),
                fmt_number(machine.bandwidth_gbs),
                fmt_number(machine_ridge_point(machine, self.dtype)),
                fmt_ratio(peak / self.own_peak) if peak and self.own_peak else "—",
                *(fmt_ratio(times_below(r.gflops or 0.0, machine, self.dtype)) for r in rungs),
            )
        return table

    def _show_tiles(self, tile: int) -> None:
        rows = tile_table(tile, self.dtype, self.machines, ("this machine", self.own_ridge))
        table = Table(
            title=f"Tile calculator: T = {tile} moves 3T² elements for 2T³ flops → "
            f"{fmt_number(rows[0].intensity)} flop/B ({self.dtype})",
            title_justify="left",
            header_style="bold",
            caption="compute-bound when the tile's intensity reaches the machine's ridge point "
            "(peak / bandwidth)",
            caption_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for header in ("machine", "ridge flop/B", f"at T = {tile}", "compute-bound from T ="):
            table.add_column(header, justify="left" if header == "machine" else "right")
        for row in rows:
            verdict = (
                "—"
                if row.compute_bound is None
                else ("compute-bound" if row.compute_bound else "memory-bound")
            )
            table.add_row(
                row.machine,
                fmt_number(row.ridge),
                verdict,
                fmt_number(row.smallest_tile) if row.smallest_tile else "—",
            )
        self.query_one("#tiles", Static).update(table)
