"""The helpers that several views and drivers share (one piece of code where the logic is one)."""

from __future__ import annotations

import argparse
import threading

from overhead_tui.commands.common import add_export_options, add_run_options, settings_from
from overhead_tui.engine.spawn import Cancel
from overhead_tui.present.format import aligned_lines
from overhead_tui.summary.layers import LAYER_LETTERS, LAYERS
from overhead_tui.tui.widgets.column_table import column_table
from overhead_tui.tui.widgets.layer_bar import LAYER_COLOURS, LAYER_GLYPHS


def test_aligned_lines_pads_columns_and_cuts_trailing_spaces():
    rows = [("name", "n", "note"), ("a", "128", ""), ("longer", "8", "x")]
    assert aligned_lines(rows, {0, 2}) == ["name      n  note", "a       128", "longer    8  x"]


def test_column_table_aligns_right_but_the_left_headers_and_has_no_border_by_default():
    table = column_table(("scenario", "GFLOP/s"), left={"scenario"}, padding=(0, 1))
    assert [c.header for c in table.columns] == ["scenario", "GFLOP/s"]
    assert [c.justify for c in table.columns] == ["left", "right"]
    assert table.box is None


def test_every_layer_has_one_letter_and_one_colour():
    assert set(LAYER_LETTERS) == set(LAYERS) == set(LAYER_COLOURS) == set(LAYER_GLYPHS)
    assert len(set(LAYER_LETTERS.values())) == len(LAYERS)
    assert LAYER_GLYPHS["boxing"] == ("b", "black on #ff875f")


def _run_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_run_options(parser)
    return parser.parse_args(["--size", "64", "--scenario", "a", "--seed", "3"])


def test_settings_from_takes_a_sweeps_scenarios_and_no_size():
    args = _run_args()
    assert settings_from(args).size == 64
    assert settings_from(args).scenarios == ["a"]
    sweep = settings_from(args, size=None, scenarios=["a", "b"])
    assert (sweep.size, sweep.scenarios, sweep.seed) == (None, ["a", "b"], 3)


def test_export_options_are_paths_in_the_order_given():
    parser = argparse.ArgumentParser()
    add_export_options(parser, json="the summary", csv="the rows")
    assert [a.dest for a in parser._actions[1:]] == ["json", "csv"]
    assert str(parser.parse_args(["--csv", "x.csv"]).csv) == "x.csv"


def test_one_cancellation_stops_a_sweep_and_every_runner_it_starts(tmp_path):
    """A sweep's points share its Cancel: cancelling it from another thread stops the point
    running now and every later one (one cancellation type, no chain of stop methods)."""
    from overhead_tui.engine.runner import Runner
    from overhead_tui.summary.records import Settings
    from overhead_tui.sweeps.sizes import SizeSweep

    sweep = SizeSweep([], [8], 10.0, Settings(), tmp_path)
    runner = Runner([], Settings(), tmp_path / "point", cancellation=sweep.cancellation)
    assert not runner.cancelled
    thread = threading.Thread(target=sweep.cancel)
    thread.start()
    thread.join()
    assert sweep.cancelled and runner.cancelled and isinstance(sweep.cancellation, Cancel)
