"""Find scenarios in folders by file path, like pytest finds test files.

A scenario is a module ``NAME.py`` in a scenarios folder.  Its declarations are plain literals at
module level and are read *statically* with :mod:`ast`: the parent process never imports or runs
scenario code (that happens only in the worker), so a broken or hostile file cannot hang or crash
the tool while listing.

Required declarations::

    TITLE = "Pure Python, ijk loop"
    RUNG = 1                       # order on the ladder
    LAYERS = ("interpreter_dispatch", "boxing", ...)   # standard names (summary.layers)
    DEFAULT_SIZE = 128             # matrix order n
    MAX_SIZE = 512
    def kernel(*args): ...         # the timed C = A·B (or its declarations, below)

Declarations with a default (``DECLARED_DEFAULTS``)::

    NAME = "python_naive"          # default: the file's name; snake_case, unique
    REMOVES = ()                   # layers dropped relative to the rung before; default none
    DTYPES = ("float64", "float32")  # the default
    def setup(a, b): ...           # numpy inputs -> the kernel's arguments (not timed);
                                   # default: the inputs as they are
    def to_numpy(result): ...      # result -> numpy array for validation; default: as it is

A C rung may declare ``SOURCE`` and ``FLAGS`` instead of defining ``kernel`` (``kit.c_rung``),
a compiled-Python rung ``SOURCE`` and ``COMPILER`` (``kit.python_rung``).

Optional: ``DENSE_KERNEL = True`` (the reference rung), ``REQUIRES = ("numba",)`` (modules
whose absence skips the scenario instead of failing it), ``SHAPES = True`` (the kernel
computes rectangular products C (m×n) = A (m×k)·B (k×n); without it a non-square shape is
skipped with a reason), ``SETS = ("default", "c")`` (the named sets it is run in:
``plugins.selection``; by default the default set) and ``PROCESSES = 3`` (the worker
processes its samples are pooled from, as a probe declares them; by default 3 for a rung
carrying interpreter dispatch when the probes run, else 1: ``engine.plan.rung_plan``).
The module docstring is the description.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from overhead_tui.errors import UsageError
from overhead_tui.summary.layers import LAYERS
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE

SUPPORTED_DTYPES: tuple[str, ...] = tuple(DTYPE_ITEMSIZE)  # the one list of dtypes
"""dtypes the engine can generate inputs and validate results for."""

IN_A_FOLDER = "fix the file or move it out of the folder"
"""What to do about a plugin file in a folder that does not parse."""


_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "TITLE": str,
    "RUNG": int,
    "LAYERS": (tuple, list),
    "DEFAULT_SIZE": int,
    "MAX_SIZE": int,
}
DEFAULT_SET = "default"
"""The named set a run chooses when it names no scenario and no set: the span, one rung per
layer removed, from pure Python to the dense kernel and the matrix engine (and every scenario
file of one's own that declares no ``SETS``)."""
DECLARED_DEFAULTS: dict[str, str | tuple[str, ...]] = {
    "REMOVES": (),
    "DTYPES": ("float64", "float32"),
    "SETS": (DEFAULT_SET,),
}
"""Declarations a scenario file may leave out, with the value it then has (``NAME`` is the
file's name): most rungs remove nothing the rung before carried, every rung's kernel
multiplies the float64 and float32 arrays the worker makes, and a file of one's own runs in
the default ladder."""

_TYPES: dict[str, type | tuple[type, ...]] = {
    **_REQUIRED,
    "NAME": str,
    "REMOVES": (tuple, list),
    "DTYPES": (tuple, list),
    "SETS": (tuple, list, str),
}
NAME_PATTERN = re.compile(r"^[a-z][A-Za-z0-9_]*$")
"""A scenario's NAME: a lower-case letter, then letters, digits and _ (``c_naive_O2``)."""


class ScenarioFileError(UsageError):
    """A scenario file or folder cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class ScenarioSpec:
    """A scenario's static declarations, read without importing it."""

    name: str
    title: str
    rung: int
    layers: tuple[str, ...]
    removes: tuple[str, ...]
    default_size: int
    max_size: int
    dtypes: tuple[str, ...]
    path: Path
    description: str = ""
    kernel_source: str = ""
    kernel_lines: tuple[int, ...] = ()
    """The file line each part of ``kernel_source`` starts at (parts are joined by two blank
    lines): views number the kernel as the file and the profilers do."""
    dense_kernel: bool = False
    requires: tuple[str, ...] = ()
    """Modules its worker needs beyond numpy (``REQUIRES``; a C rung, which declares ``SOURCE``
    and ``FLAGS``, needs cffi besides): a missing one skips the rung with the pip fix."""
    shapes: bool = False
    """Declares ``SHAPES = True``: the kernel handles m × k times k × n with m, k, n unequal."""
    processes: int = 0
    """Worker processes to pool its samples from (``PROCESSES``; 0: the default rule)."""
    sets: tuple[str, ...] = (DEFAULT_SET,)
    """The named sets it belongs to (``SETS``), besides :data:`ALL_SET`."""
    builds: bool = False
    """Declares ``SOURCE``: its ``setup`` compiles a module (C, C++, Cython, mypyc, Pythran,
    Nuitka) that the run builds before anything is timed (``engine.prebuild``)."""


def builtin_scenarios_dir() -> Path:
    """The built-in ``scenarios/`` folder (in a wheel: ``overhead_tui/_builtin/scenarios``)."""
    package = Path(__file__).resolve().parent.parent
    shipped = package / "_builtin" / "scenarios"
    return shipped if shipped.is_dir() else package.parent / "scenarios"


def discover(dirs: list[Path] | None = None, include_builtin: bool = True) -> list[ScenarioSpec]:
    """Return the scenarios in the built-in folder and ``dirs``, sorted by (rung, name).

    Raises:
        ScenarioFileError: a folder is missing or holds no scenario file, a file is broken, or
            two scenarios share a name.
    """
    folders = ([builtin_scenarios_dir()] if include_builtin else []) + list(dirs or [])
    specs: dict[str, ScenarioSpec] = {}
    read: set[Path] = set()
    for folder in folders:
        folder = Path(folder)
        if folder.resolve() in read:  # named twice, or the built-in folder again: read once
            continue
        read.add(folder.resolve())
        if not folder.exists():
            raise ScenarioFileError(
                f"scenarios folder {folder} does not exist; fix: pass an existing folder"
            )
        if not folder.is_dir():
            raise ScenarioFileError(f"{folder} is not a folder; fix: pass the folder it is in")
        paths = [p for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]
        if not paths:
            raise _no_scenario_file(folder)
        for path in paths:
            spec = read_spec(path)
            if spec.name in specs:
                other = specs[spec.name].path
                raise ScenarioFileError(
                    f"{path}: scenario name {spec.name!r} is already used by {other}; "
                    "fix: give it another NAME (by default a scenario's NAME is its file's name)"
                )
            specs[spec.name] = spec
    return sorted(specs.values(), key=lambda s: (s.rung, s.name))


def _no_scenario_file(folder: Path) -> ScenarioFileError:
    """The one-line error for a folder holding no scenario file: a wrong folder would
    otherwise run the built-ins alone, silently without the user's own scenarios."""
    builtin = builtin_scenarios_dir()
    below = sorted(p.parent for p in folder.glob("*/*.py") if not p.name.startswith("_"))
    fix = (
        f"give the folder your scenario files are in, e.g. {below[0]} (it holds .py files)"
        if below  # the folder above the user's own
        else f"give the folder your scenario files are in, or write one there with "
        f"`overhead-tui new my_loop --dir {folder}` ({builtin / 'README.md'} describes the file)"
    )
    return ScenarioFileError(
        f"scenarios folder {folder} holds no scenario file (a NAME.py, not starting with _, "
        f"declaring TITLE, RUNG, … and defining kernel()); fix: {fix}"
    )


def read_spec(path: Path, fix: str = IN_A_FOLDER) -> ScenarioSpec:
    """Read one scenario file's declarations; ``fix`` ends a syntax error's message (the
    file one watches is fixed, not moved out of a folder).

    Raises:
        ScenarioFileError: unreadable file, syntax error, missing or malformed declaration.
    """
    source, tree = parse_module(path, fix)
    values = {"NAME": path.stem, **DECLARED_DEFAULTS, **literal_assignments(tree, path, _TYPES)}
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    if missing := [key for key in _REQUIRED if key not in values]:
        said = ", ".join(missing)
        raise ScenarioFileError(
            f"{path}: missing declaration{'s' if len(missing) > 1 else ''} {said}; fix: add "
            f"`{missing[0]} = ...`{' and the others' if len(missing) > 1 else ''} at module level "
            "(see `overhead-tui list --help`; `overhead-tui new NAME` writes a complete file)"
        )
    for key, kind in _TYPES.items():
        if not isinstance(values[key], kind) or isinstance(values[key], bool):
            want = " or ".join(t.__name__ for t in (kind if isinstance(kind, tuple) else (kind,)))
            raise ScenarioFileError(
                f"{path}: {key} has the wrong type ({values[key]!r}); fix: make it a literal of "
                f"type {want} (see `overhead-tui list --help`)"
            )
    assigned = _assigned(tree)
    if not NAME_PATTERN.match(values["NAME"]):
        what, fix = ("declared", "change it") if "NAME" in assigned else ("the file's", "rename it")
        raise ScenarioFileError(
            f"{path}: NAME {values['NAME']!r} ({what}) is not snake_case (letters, digits and _, "
            f'starting with a lower-case letter); fix: {fix} (e.g. "my_scenario")'
        )
    _check_kernel(path, assigned, values, "kernel" in functions)
    spec = ScenarioSpec(
        name=values["NAME"],
        title=values["TITLE"],
        rung=values["RUNG"],
        layers=tuple(values["LAYERS"]),
        removes=tuple(values["REMOVES"]),
        default_size=values["DEFAULT_SIZE"],
        max_size=values["MAX_SIZE"],
        dtypes=tuple(values["DTYPES"]),
        path=path.resolve(),
        description=reflow(ast.get_docstring(tree) or ""),
        kernel_source=_kernel_source(source, tree)[0],
        kernel_lines=_kernel_source(source, tree)[1],
        dense_kernel=bool(values.get("DENSE_KERNEL", False)),
        requires=_requires(values, assigned, path),
        shapes=_flag(values.get("SHAPES", False), path, "SHAPES"),
        processes=declared_processes(values.get("PROCESSES", 0), path),
        sets=tuple(dict.fromkeys(_string_tuple(values["SETS"], path, "SETS"))),
        builds="SOURCE" in assigned,
    )
    _check(spec)
    return spec


def _check_kernel(path: Path, assigned: set[str], values: dict[str, object], kernel: bool) -> None:
    """The file defines ``kernel`` or declares what completes one: ``SOURCE`` with ``FLAGS``
    (a C rung, ``kit.c_rung``) or with ``COMPILER`` (compiled Python, ``kit.python_rung``).

    Raises:
        ScenarioFileError: neither, SOURCE alone, or a COMPILER the kit does not drive.
    """
    from overhead_tui.kit.c_rung import LANGUAGES
    from overhead_tui.kit.pybuild import TOOLS

    language = values.get("LANGUAGE", "C")
    if "LANGUAGE" in assigned and language not in LANGUAGES:
        raise ScenarioFileError(
            f"{path}: LANGUAGE must be one of {', '.join(map(repr, LANGUAGES))}, got "
            f"{language!r}; fix: name the language of its SOURCE as one of these (C is the "
            "default)"
        )
    compiler = values.get("COMPILER")
    if "COMPILER" in assigned and compiler not in TOOLS:
        raise ScenarioFileError(
            f"{path}: COMPILER must be one of {', '.join(map(repr, TOOLS))}, got "
            f"{compiler!r}; fix: name the compiler that builds SOURCE"
        )
    if "SOURCE" in values and not isinstance(values["SOURCE"], str):
        raise ScenarioFileError(
            f"{path}: SOURCE must be a string, got {type(values['SOURCE']).__name__}; fix: "
            'write it as SOURCE = r"""...""" (the C or Python source to compile)'
        )
    if {"FLAGS", "COMPILER"} <= assigned:
        raise ScenarioFileError(
            f"{path}: declares both FLAGS (a C rung) and COMPILER (compiled Python); fix: keep "
            "the one that builds SOURCE"
        )
    if "COMPILER" in assigned and (kernel or "SOURCE" not in assigned):
        said = "defines kernel() too" if kernel else "declares no SOURCE"
        raise ScenarioFileError(
            f"{path}: declares COMPILER but {said}; fix: COMPILER builds SOURCE, a module "
            "defining kernel(), and calls it (a file with its own kernel() builds SOURCE with "
            "compile_python in its setup and declares no COMPILER)"
        )
    if kernel or ("SOURCE" in assigned and assigned & {"FLAGS", "COMPILER"}):
        return
    if "SOURCE" in assigned:
        raise ScenarioFileError(
            f"{path}: declares SOURCE but no FLAGS, COMPILER or kernel(); fix: add FLAGS = "
            '["-O2"] (the C compiler\'s flags, a C rung), COMPILER = "cython" (compiled '
            "Python) or define kernel()"
        )
    raise ScenarioFileError(
        f"{path}: missing function kernel(); fix: define it (a C, C++ or Mojo rung may instead "
        "declare SOURCE and FLAGS, a compiled-Python rung SOURCE and COMPILER)"
    )


def _requires(values: dict[str, object], assigned: set[str], path: Path) -> tuple[str, ...]:
    """``REQUIRES``, with cffi for a C rung (it declares ``SOURCE`` and ``FLAGS``: cffi builds
    and loads it), so a worker's interpreter without cffi skips it with the fix."""
    declared = _string_tuple(values.get("REQUIRES", ()), path, "REQUIRES")
    c_rung = {"SOURCE", "FLAGS"} <= assigned and "cffi" not in declared
    return (*declared, "cffi") if c_rung else declared


def _assigned(tree: ast.Module) -> set[str]:
    """The names a module assigns at its top level (``NAME = …`` and ``NAME: T = …``)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def declared_processes(value: object, path: Path) -> int:
    """A scenario's or probe's ``PROCESSES``: 1 to 31 worker processes, 0 for the default."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 31:
        raise ScenarioFileError(
            f"{path}: PROCESSES must be 1 to 31 (0: the default), got {value!r}; fix: give a "
            "whole number from 0 to 31"
        )
    return value


def parse_module(path: Path, fix: str = IN_A_FOLDER) -> tuple[str, ast.Module]:
    """Read and parse a plugin file (scenario or probe) without running it; ``fix`` ends the
    message of a file that does not parse.

    Raises:
        ScenarioFileError: unreadable file or syntax error, naming the file and line.
    """
    try:
        source = path.read_text(encoding="utf-8")
        return source, ast.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise ScenarioFileError(
            f"{path}:{exc.lineno or 1}: syntax error ({exc.msg}); {fix}"
        ) from None
    except ValueError as exc:  # e.g. a NUL byte in the source
        raise ScenarioFileError(f"{path}: not Python source ({exc}); {fix}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioFileError(f"cannot read {path}: {exc}") from None


def literal_assignments(
    tree: ast.Module, path: Path, required: Iterable[str] = ()
) -> dict[str, Any]:
    """Evaluate a module's top-level ``UPPER = literal`` assignments.

    Raises:
        ScenarioFileError: a name in ``required`` is assigned something that is not a literal.
    """
    required = set(required)
    values: dict[str, Any] = {}
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id.isupper()):
            continue
        try:
            values[target.id] = ast.literal_eval(node.value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            if target.id in required:
                raise ScenarioFileError(
                    f"{path}:{node.lineno}: {target.id} must be a plain literal (it is read "
                    "without running the file); fix: write its value out (a string, number, "
                    "tuple of strings, True or False)"
                ) from None
    return values


def _kernel_source(source: str, tree: ast.Module) -> tuple[str, tuple[int, ...]]:
    """The source of ``kernel`` and the module's helper functions (e.g. the @njit loop it
    calls) and a C rung's ``SOURCE``, in file order, joined by two blank lines; ``setup`` and
    ``to_numpy`` are left out.  With the file line each part starts at."""
    lines = source.splitlines()
    parts = []
    starts = []
    for node in tree.body:
        is_c_source = (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "SOURCE"
        )
        if is_c_source:  # a C rung: its compiled source is the kernel
            parts.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
            starts.append(node.lineno)
        elif isinstance(node, ast.FunctionDef) and node.name not in ("setup", "to_numpy"):
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            parts.append("\n".join(lines[start - 1 : node.end_lineno]))
            starts.append(start)
    return "\n\n\n".join(parts), tuple(starts)


def reflow(text: str) -> str:
    """Join the hard-wrapped lines of each paragraph (blank-line separated) into one line."""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def _flag(value: object, path: Path, key: str) -> bool:
    """A declared ``True``/``False``."""
    if not isinstance(value, bool):
        raise ScenarioFileError(f"{path}: {key} must be True or False, got {value!r}")
    return value


def _string_tuple(value: object, path: Path, key: str) -> tuple[str, ...]:
    """A declared sequence of names; a single string means one name."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (tuple, list)):
        raise ScenarioFileError(f"{path}: {key} must be a tuple of strings, e.g. ('numba',)")
    return tuple(value)


def _check(spec: ScenarioSpec) -> None:
    where = spec.path
    for key, items in (
        ("LAYERS", spec.layers),
        ("REMOVES", spec.removes),
        ("DTYPES", spec.dtypes),
        ("REQUIRES", spec.requires),
        ("SETS", spec.sets),
    ):
        if not all(isinstance(x, str) for x in items):
            raise ScenarioFileError(
                f"{where}: {key} must be a tuple of strings; fix: quote each item, e.g. "
                f"{key} = {('a', 'b')!r}"
            )
    for key, items in (("LAYERS", spec.layers), ("REMOVES", spec.removes)):
        if unknown := [x for x in items if x not in LAYERS]:
            close = difflib.get_close_matches(unknown[0], LAYERS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ScenarioFileError(
                f"{where}: {key} names unknown layer(s) {', '.join(map(repr, unknown))}; fix: "
                f"{hint}use the standard names ({', '.join(LAYERS)})"
            )
    if (bad_set := next((x for x in spec.sets if not NAME_PATTERN.match(x)), None)) is not None:
        raise ScenarioFileError(
            f"{where}: SETS names {bad_set!r}, not a set name; fix: letters, digits and _, "
            f"starting with a lower-case letter (e.g. SETS = {(DEFAULT_SET, 'mine')!r})"
        )
    if not 1 <= spec.default_size <= spec.max_size:
        raise ScenarioFileError(
            f"{where}: DEFAULT_SIZE = {spec.default_size} is not within 1 … MAX_SIZE = "
            f"{spec.max_size}; fix: a DEFAULT_SIZE from 1 to {max(spec.max_size, 1)}, or a "
            "larger MAX_SIZE"
        )
    bad = [d for d in spec.dtypes if d not in SUPPORTED_DTYPES]
    if bad or not spec.dtypes or len(set(spec.dtypes)) < len(spec.dtypes):
        got = f"{', '.join(map(repr, bad))} is not one" if bad else f"got {spec.dtypes!r}"
        raise ScenarioFileError(
            f"{where}: DTYPES must be a non-empty subset of {', '.join(SUPPORTED_DTYPES)}, each "
            f"once ({got}); fix: e.g. DTYPES = {('float64', 'float32')!r}"
        )
