"""``overhead-tui new NAME``: a scenario file of your own, started from a built-in rung."""

from __future__ import annotations

import argparse
import keyword
import re
from pathlib import Path

from overhead_tui.commands.command import Command
from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import DECLARED_DEFAULTS, NAME_PATTERN, discover
from overhead_tui.plugins.selection import select

HELP = "write a scenario file of your own, started from a built-in rung"
DESCRIPTION = (
    "Copy a built-in rung (--from, default python_naive) to DIR/NAME.py with its NAME set to "
    "NAME and a comment before each declaration saying what it does. Edit its kernel, then run "
    "it with `overhead-tui run --scenarios-dir DIR --scenario NAME` (or open the app with "
    "--scenarios-dir DIR)."
)


DECLARATIONS = {
    "NAME": "the scenario's name: what --scenario picks and tables show (default: the file's)",
    "TITLE": "one line saying how this kernel computes C = A·B",
    "RUNG": "its place on the ladder (1 = pure Python ... 21 = the dense kernel)",
    "LAYERS": "the layers of overhead its code carries (`overhead-tui list` shows the names)",
    "REMOVES": "what it removes against the rung before (default none; the waterfall measures it)",
    "DEFAULT_SIZE": "the matrix order n it runs at without --size",
    "MAX_SIZE": "the largest n it may be asked for (a sweep stops there)",
    "DTYPES": "the element types it computes in (default: float64 and float32)",
    "SETS": "the named sets it runs in (`--set NAME`; default: the default set, run by "
    "`overhead-tui run` alone)",
    "REQUIRES": "the modules it needs (a missing one skips the rung with the install command)",
    "FLAGS": "the compiler's flags (a C, C++ or Mojo rung: with SOURCE and no functions it is "
    "complete)",
    "LINK_FLAGS": "the linker's flags (libraries the C source needs)",
    "SHAPES": "True: its kernel multiplies A (m×k) by B (k×n) of any shape, not only square",
    "COMPILER": "what builds SOURCE into its kernel (cython, mypyc or pythran: compiled Python)",
    "BLAS_THREADS": "the threads numpy's BLAS may use while this rung runs (its own team runs)",
    "SOURCE": "what is compiled: with FLAGS a matmul(a, b, c, n) of C ABI (in its LANGUAGE), with "
    "COMPILER a module defining kernel",
    "LANGUAGE": "what SOURCE is written in: C (the default), C++ or Mojo",
}
"""What each declaration of a scenario file means: the comment ``new`` writes before it."""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``new``."""
    parser.add_argument("name", metavar="NAME", help="the new scenario's name (a Python name)")
    parser.add_argument(
        "--from",
        dest="source",
        default="python_naive",
        metavar="RUNG",
        help="the built-in rung to start from (default: python_naive; `overhead-tui list`)",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the folder to write NAME.py in (created if missing; default: here)",
    )


def run(args: argparse.Namespace) -> int:
    """Write DIR/NAME.py; one line on stdout naming it and how to run it."""
    path = scaffold(args.name, args.source, args.dir)
    print(f"wrote {path}; watch it with: overhead-tui watch {path} (or run it with: "
          f"overhead-tui run --scenarios-dir {args.dir} --scenario {args.name})")  # fmt: skip
    return 0


def _inline_source(text: str) -> str:
    """A C rung's ``SOURCE = KIT_NAME`` (a source the kit shares among rungs, e.g.
    ``PACKED_GEMM_SOURCE``) written out as the literal it names, so the copy's C can be
    edited; the name's import goes."""
    import overhead_tui.api as api

    found = re.search(r"(?m)^SOURCE = ([A-Z][A-Z0-9_]*)$", text)
    if found is None or not isinstance(shared := getattr(api, found[1], None), str):
        return text
    literal = f'SOURCE = r"""{shared}"""  # overhead_tui.api.{found[1]}, written out to edit'
    text = text[: found.start()] + literal + text[found.end() :]
    text = text.replace(f"from overhead_tui.api import {found[1]}\n\n", "")
    return text.replace(f"    {found[1]},\n", "")


def _with_defaults(text: str, name: str) -> str:
    """The rung's file with the declarations it leaves to their defaults written out (``NAME``
    before ``TITLE``, the others after ``MAX_SIZE``), so the copy shows each one to edit."""
    if not re.search(r"(?m)^NAME = ", text):
        text = re.sub(r"(?m)^TITLE = ", f'NAME = "{name}"\nTITLE = ', text, count=1)
    for key, value in reversed(DECLARED_DEFAULTS.items()):
        if not re.search(rf"(?m)^{key} = ", text):
            literal = repr(tuple(value)).replace("'", '"')
            text = re.sub(r"(?m)^(MAX_SIZE = .*\n)", rf"\1{key} = {literal}\n", text, count=1)
    return text


def scaffold(name: str, source: str, folder: Path) -> Path:
    """Write ``folder``/``name``.py: the built-in rung ``source``'s file with its ``NAME`` set
    to ``name`` and :data:`DECLARATIONS`' comment before each declaration; its path.

    Raises:
        UsageError: ``name`` is not a Python name or is taken by a built-in rung, ``source``
            is unknown, the file exists already, or ``folder`` cannot be written.
    """
    if keyword.iskeyword(name):
        raise UsageError(f"{name!r} is a Python keyword; fix: choose another NAME")
    if not NAME_PATTERN.match(name):
        raise UsageError(
            f"{name!r} is not a scenario name; fix: letters, digits and _, starting with a "
            "lower-case letter (my_loop)"
        )
    builtins = {spec.name: spec for spec in discover([])}
    if name in builtins:
        raise UsageError(f"{name} is a built-in rung's name; fix: choose another NAME")
    spec = select(list(builtins.values()), [source])[0]
    target = folder / f"{name}.py"
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--dir {folder} is a file; fix: give a folder")
    if target.exists():
        raise UsageError(f"{target} exists already; fix: choose another NAME or --dir")
    text = spec.path.read_text(encoding="utf-8")
    text = _with_defaults(text, name)
    text = re.sub(r'(?m)^NAME = "[^"]*"', f'NAME = "{name}"', text, count=1)
    text = re.sub(r'(?m)^TITLE = "', f'TITLE = "{name} (from {source}): ', text, count=1)
    text = re.sub(r"(?m)^DENSE_KERNEL = .*\n", "", text)  # one dense kernel per ladder
    text = re.sub(r"(?m)^SETS = .*$", 'SETS = ("default",)', text, count=1)  # not the built-in's
    text = _inline_source(text)
    for declaration, meaning in DECLARATIONS.items():
        text = re.sub(
            rf"(?m)^({declaration} = )", rf"# {declaration}: {meaning}\n\1", text, count=1
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot write {target}: {exc.strerror or exc}; fix: give --dir a writable folder"
        ) from None
    return target


COMMAND = Command("new", HELP, DESCRIPTION, run, (add_options,))
