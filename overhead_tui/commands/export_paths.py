"""Checks of the export paths a command was given, made before anything runs: each one a
file that can be written in an existing folder, none shared, none replacing a run's own files."""

from __future__ import annotations

import shlex
from pathlib import Path

from overhead_tui.engine.run_dir import refuse_run_files, refuse_saved_run_files
from overhead_tui.errors import UsageError
from overhead_tui.kit.folders import writable_problem

EXPORT_EXAMPLES = {
    "--json": "summary.json",
    "--markdown": "report.md",
    "--csv": "ladder.csv",
    "--speedscope": "profile.speedscope.json",
    "--collapsed": "stacks.txt",
}
"""A file name to suggest for each export option when it was given a folder."""


def check_export_paths(
    paths: dict[str, Path | None], out: Path | None = None, made: Path | None = None
) -> None:
    """Fail before measuring when an export could not be written, or would replace a run's
    own files (a saved run's, or those this run writes in ``out``).

    An export's folder must exist: a mistyped folder is named, not created to hold the file
    where nobody looks.  The one exception is a folder the command itself creates before it
    writes the exports (its ``--out``): ``run --out DIR --json DIR/s.json`` is fine.

    Args:
        paths: {option: the path given to it, or None}, e.g. ``{"--json": args.json}``.
        out: the run's ``--out`` folder, for a command that writes one (None: none given).
        made: a folder the command creates before writing, which is not a run's own
            (``interpreters``' ``--out``, holding one run folder per interpreter); ``out`` is
            one too.

    Raises:
        UsageError: two exports share a path, a path is a folder, its folder does not exist
            or is not a writable one, or it is a run's own file.
    """
    refuse_run_files(paths, out)
    created = {f.resolve() for f in (out, made) if f is not None}
    given = {option: p for option, p in paths.items() if p is not None}
    if len({p.resolve() for p in given.values()}) != len(given):
        raise UsageError("two exports were given the same file; fix: give each its own path")
    for option, path in given.items():
        if str(path) == "-":  # stdout carries the table (only `machine --json -` means stdout)
            example = EXPORT_EXAMPLES.get(option, "out.txt")
            raise UsageError(
                f"{option} - would write a file named '-'; fix: give a file name such as {example}"
            )
        if path.is_dir():
            inside = path / EXPORT_EXAMPLES.get(option, "out.txt")
            raise UsageError(f"{option} {path} is a folder; fix: give a file name such as {inside}")
        refuse_saved_run_files(option, path)
        folder = path.parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent  # the nearest one there is
        if not folder.is_dir():
            fix = "fix: give a path in an existing folder"
            raise UsageError(f"cannot write {option} {path}: {folder} is not a folder; {fix}")
        if folder != path.parent and path.parent.resolve() not in created:
            raise UsageError(
                f"cannot write {option} {path}: the folder {path.parent} does not exist; fix: "
                f"create it first (mkdir -p {shlex.quote(str(path.parent))}), or give a path in "
                "an existing folder"
            )
        problem = writable_problem(folder)  # tried for real: holds for root and /proc too
        if problem is not None:
            raise UsageError(
                f"cannot write {option} {path}: files cannot be created in {folder} "
                f"({problem}); fix: give a path in a writable folder"
            )
