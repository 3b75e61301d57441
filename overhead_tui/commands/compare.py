"""``overhead-tui compare A B``: two saved runs rung by rung, with a rank test on the samples."""

from __future__ import annotations

import argparse
from pathlib import Path

from overhead_tui.analysis.compare import DEFAULT_ALPHA, Comparison, compare_runs
from overhead_tui.commands.command import Command
from overhead_tui.errors import UsageError
from overhead_tui.present.compare_text import (
    COMPARE_HEADERS,
    comparison_cells,
    facts_lines,
    run_notes,
)
from overhead_tui.present.format import aligned_lines
from overhead_tui.summary.interpreters import is_interpreters_summary
from overhead_tui.summary.records import RunSummary

LEFT_ALIGNED = {0, 5, 6}
"""Columns of the text table aligned left (scenario, verdict, note); numbers align right."""


def significance_level(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{value} is not between 0 and 1 (e.g. 0.05)")
    return value


HELP = "compare two saved runs rung by rung (medians, B/A, rank test)"
DESCRIPTION = (
    "For every scenario in both runs: A's and B's median time per call, the "
    "ratio B/A (above 1: B is slower; per flop when n differs) and whether the samples "
    "differ significantly (two-sided Mann-Whitney U rank test). Then the machine facts "
    "and settings that differ, and the scenarios only one run has."
)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``compare``."""
    for name in ("a", "b"):
        parser.add_argument(
            name,
            type=Path,
            metavar=name.upper(),
            help=f"run {name.upper()}: a summary.json file or a run directory",
        )
    parser.add_argument(
        "--alpha",
        type=significance_level,
        default=DEFAULT_ALPHA,
        help=f"significance level of the rank test (default: {DEFAULT_ALPHA})",
    )
    parser.add_argument("--app", action="store_true", help="show the comparison in the app")


def run(args: argparse.Namespace) -> int:
    """Load both runs (SummaryError -> one line, exit 2), then print or show the comparison."""
    run_a, run_b = load_run(args.a), load_run(args.b)
    comparison = compare_runs(run_a, run_b, args.alpha, labels=(str(args.a), str(args.b)))
    if not comparison.rows:
        raise UsageError(nothing_in_common(comparison))
    if args.app:
        return open_in_app(comparison, run_a)
    print(render_comparison(comparison))
    return 0


def load_run(path: Path) -> RunSummary:
    """One side of the comparison: a run's summary.json or run directory.

    Raises:
        UsageError: ``path`` is the combined summary of ``interpreters`` (several runs).
        SummaryError: missing, unreadable, not JSON or not a valid summary.
    """
    if is_interpreters_summary(path):
        raise UsageError(
            f"{path} is a combined summary of `overhead-tui interpreters` (one run per "
            "interpreter); fix: compare two of the run directories it lists (run_dir), or "
            f"`overhead-tui open {path}`"
        )
    return RunSummary.load(path)


def nothing_in_common(comparison: Comparison) -> str:
    """The one line said when the two runs share no scenario (there is no table to show)."""
    a, b = _few(comparison.only_in_a), _few(comparison.only_in_b)
    return (
        f"{comparison.label_a} and {comparison.label_b} have no scenario in common "
        f"(A ran: {a}; B ran: {b}); compare two runs of the same rungs"
    )


def _few(names: list[str], most: int = 3) -> str:
    """Up to ``most`` names, then how many more: ``a, b, c and 17 more``; ``none`` if empty."""
    if not names:
        return "none"
    shown = ", ".join(names[:most])
    return f"{shown} and {len(names) - most} more" if len(names) > most else shown


def render_comparison(comparison: Comparison) -> str:
    """The comparison as plain text: runs (sweeps, the same run), legend, table, differences,
    facts recorded in one run only, rungs only in one run."""
    lines = [
        f"A: {comparison.label_a}",
        f"B: {comparison.label_b}",
        *run_notes(comparison),
        f"B/A above 1: B is slower; significant when p < {comparison.alpha:g} "
        "(two-sided Mann-Whitney U on the samples)",
        "",
        *render_table(comparison),
        "",
        *facts_lines(comparison),
    ]
    return "\n".join(lines)


def render_table(comparison: Comparison) -> list[str]:
    """The rows as aligned plain-text lines, headed by the column names."""
    rows = [(*COMPARE_HEADERS, "note"), *(comparison_cells(r) for r in comparison.rows)]
    return aligned_lines(rows, LEFT_ALIGNED)


def open_in_app(comparison: Comparison, run_a: RunSummary) -> int:
    """Open the app on run A with the *Compare* screen on top (Textual is imported here)."""
    from overhead_tui.commands.common import (
        EXIT_NO_TTY,
        require_terminal,
        run_app,
        settings_problem,
    )

    if not require_terminal():
        return EXIT_NO_TTY
    from overhead_tui.tui.screens.compare import compare_app

    return run_app(compare_app(comparison, run_a, settings_problem=settings_problem))


COMMAND = Command("compare", HELP, DESCRIPTION, run, (add_options,))
