"""Compile a rung's Python or Cython source into an extension module (Cython, mypyc, Pythran
or Nuitka), cached per machine and interpreter, and import it.

A compiled-Python scenario calls :func:`compile_python` from its ``setup`` with its ``SOURCE``
(the text of one module) and a tool of :data:`TOOLS`: ``"cython"`` compiles it as a ``.pyx``
(``Cython.Build.cythonize``), ``"mypyc"`` type-checks it and compiles it as a ``.py``
(``mypyc.build.mypycify``), ``"pythran"`` translates its numpy-style Python (its ``#pythran
export`` lines give the argument types) into C++ (``pythran.dist.PythranExtension``, built by
Pythran's ``PythranBuildExt``, with ``CXX``: cbuild's ``compiler("C++")``), ``"nuitka"``
compiles the Python unchanged to C that calls the C API (``python -m nuitka --module``, its
own scons build: :data:`NUITKA_SCRIPT`).  Setuptools' ``build_ext --inplace`` (Nuitka's
script in its place) builds it, run as a subprocess of this very interpreter
in a private folder inside the build cache (cbuild's
:func:`~overhead_tui.kit.cbuild.usable_cache_dir`: the user cache dir, or a private
temporary one, with a warning, when that is not writable), with ``CC`` set to cbuild's
:func:`~overhead_tui.kit.cbuild.compiler` and ``CFLAGS`` to Python's own, then the rung's.  The
extension is moved into the cache last, with one ``os.replace`` (cbuild does the same):
concurrent workers building the same key each build in their own folder, the cache only ever
holds a complete module, and a worker that loaded an earlier copy keeps its mapping.

The cache key (:func:`python_build_key`, made by cbuild's
:func:`~overhead_tui.kit.cbuild.build_key`) hashes the source, the tool and its version,
the C compiler's version, the rung's flags, the interpreter's ABI (:func:`interpreter_abi`)
and the CPU.  A warm build imports the cached file (under 1 ms; importing the tool for its
version and ``cc --version`` cost about 50 ms before it), once per process: later set-ups (the
counting phase's sizes) reuse the module.  Cold builds take seconds (2-vCPU Zen 4: 2.6 s for
python_naive's loop with Cython, 4.6 s with mypyc, 7.9 s for the typed memoryview loop, most
of it gcc on Cython's memoryview code).

Cython, mypy (mypyc), Pythran and setuptools are imported only inside functions or by the
build's own process (a worker runs under any ``--python`` that has only numpy); a missing one,
or a missing C (C++ for Pythran) compiler, raises
:class:`~overhead_tui.kit.cbuild.Unavailable` with the fix, so the rung is skipped with one
line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from overhead_tui.kit.builds import record_build, split_legacy
from overhead_tui.kit.cbuild import (
    SAVE_ASSEMBLY,
    BuildError,
    BuildFields,
    Unavailable,
    _load,
    _suffix,
    build_key,
    compiler,
    compiler_version,
    cpu_signature,
    usable_cache_dir,
)
from overhead_tui.kit.folders import build_once, private_build_folder

CYTHON_SCRIPT = """\
from Cython.Build import cythonize
from setuptools import setup

setup(name={module!r}, ext_modules=cythonize({source!r}, language_level=3, quiet=True))
"""
"""The setup script of a Cython build (``{module}.setup.py``; ``{source}`` is the ``.pyx``)."""
MYPYC_SCRIPT = """\
from mypyc.build import mypycify
from setuptools import setup

setup(name={module!r}, ext_modules=mypycify([{source!r}]))
"""
"""The setup script of a mypyc build (``{source}`` is the ``.py``; mypyc's default -O3)."""
PYTHRAN_SCRIPT = """\
from pythran.dist import PythranBuildExt, PythranExtension
from setuptools import setup

setup(name={module!r}, ext_modules=[PythranExtension({module!r}, [{source!r}])],
      cmdclass={{"build_ext": PythranBuildExt}})
"""
"""The setup script of a Pythran build (``{source}`` is the ``.py``), as Pythran's documentation
writes one; Python's ``CFLAGS`` (its ``-O3``) come after Pythran's own ``-O2``."""
NUITKA_SCRIPT = """\
import sys

from nuitka.__main__ import main

# Nuitka compiles the module unchanged (no setuptools): its own scons build, which takes CC and
# CFLAGS from the environment and prints each compile command (--show-scons)
sys.argv = [sys.argv[0], "--module", {source!r}, "--nofollow-imports", "--lto=no",
            "--output-dir=.", "--show-scons"]
main()
"""
"""The build script of a Nuitka module (``{source}`` is the ``.py``; the command's ``build_ext
--inplace`` is ignored).  Nuitka compiles its own C helpers beside the module's C each time:
most of a cold build (22–25 s on a 2-vCPU Zen 3, 2026-12-07, for python_naive's loop)."""


@dataclass(frozen=True)
class Tool:
    """A compiler of Python source: how it is named, installed, fed and driven."""

    label: str
    """Its name in the build info and in messages."""
    package: str
    """What ``pip install`` installs it from."""
    suffix: str
    """The suffix of the source file it compiles."""
    script: str
    """Its setup script (:data:`CYTHON_SCRIPT`, :data:`MYPYC_SCRIPT`)."""
    generated_c: str
    """Where the C (C++) it generated is, in the build folder (kept beside the extension)."""
    language: str = "C"
    """What it generates: ``C`` (compiled by ``CC``) or ``C++`` (``CXX`` as well)."""
    assembly: str | None = None
    """Where the module's own assembly is in the build folder (``-save-temps=obj``); None: the
    first ``.s`` file found (the build makes one)."""
    setuptools: bool = True
    """Whether it builds through setuptools (Nuitka does not)."""
    real_cc: bool = False
    """Whether ``CC`` is handed as its real file: Nuitka tells compilers apart by the file's
    name, and took ``/usr/bin/cc`` (a link to gcc) for an unknown one and built the module as
    C++, which failed."""


TOOLS = {
    "cython": Tool("Cython", "Cython", ".pyx", CYTHON_SCRIPT, "{module}.c"),
    "mypyc": Tool("mypyc", "mypy", ".py", MYPYC_SCRIPT, "build/__native.c"),
    "pythran": Tool("Pythran", "pythran", ".py", PYTHRAN_SCRIPT, "{module}.cpp", "C++"),
    "nuitka": Tool("Nuitka", "nuitka", ".py", NUITKA_SCRIPT, "{module}.build/module.{module}.c",
                   assembly="{module}.build/module.{module}.s", setuptools=False,
                   real_cc=True),
}  # fmt: skip
"""The tools :func:`build_python` drives, by the name a rung passes."""
RECIPE = "setuptools build_ext --inplace, CC and CFLAGS (Python's, -g0), -save-temps=obj (5)"
"""How a module is built: part of the cache key (a change of recipe rebuilds)."""
BUILD_TIMEOUT_S = 600
"""Seconds one build may take (mypyc type-checks first: a few seconds when cold)."""

_loaded: dict[tuple[str, str, str, tuple[str, ...]], tuple[ModuleType, BuildFields]] = {}
"""Modules built or loaded by this process, by (name, source, tool, flags)."""


def tool_version(tool: str) -> str:
    """The version of ``tool`` in this interpreter, as the build info gives it (``Cython
    3.0.11``, ``mypyc (mypy 1.11.2)``, ``Pythran 0.19.0``), once setuptools is there to build with.

    Raises:
        Unavailable: the tool or setuptools is not installed (the message has the pip command),
            or mypyc is asked for on an interpreter other than CPython.
    """
    spec = TOOLS[tool]
    pip = f"{sys.executable} -m pip install"
    if tool == "mypyc" and sys.implementation.name != "cpython":
        raise Unavailable(f"mypyc compiles for CPython only, not {sys.implementation.name}")
    try:
        if tool == "cython":
            import Cython

            version = f"Cython {Cython.__version__}"
        elif tool == "pythran":
            import pythran

            version = f"Pythran {pythran.__version__}"
        elif tool == "nuitka":
            from nuitka.Version import getNuitkaVersion

            version = f"Nuitka {getNuitkaVersion()}"
        else:
            import mypyc  # noqa: F401  # mypyc ships with mypy
            from mypy.version import __version__ as mypy_version

            version = f"mypyc (mypy {mypy_version})"
    except ImportError as exc:
        raise Unavailable(
            f"{spec.label} cannot be imported by {sys.executable} ({exc}; fix: {pip} "
            f"{spec.package})"
        ) from None
    if spec.setuptools and not _importable("setuptools"):
        raise Unavailable(
            f"setuptools, which builds {spec.label}'s extensions, cannot be imported by "
            f"{sys.executable} (fix: {pip} setuptools)"
        )
    return version


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # blocked (None in sys.modules) or a broken parent
        return False


def interpreter_abi() -> str:
    """What a built extension depends on of this interpreter: ``sys.implementation.cache_tag``,
    ``SOABI`` (e.g. ``cpython-312-x86_64-linux-gnu``: version, debug or free-threaded build,
    platform) and the ``CFLAGS`` Python was built with (setuptools compiles with them)."""
    abi = sysconfig.get_config_var("SOABI") or sysconfig.get_config_var("EXT_SUFFIX")
    cflags = sysconfig.get_config_var("CFLAGS")
    return " ".join(map(str, (sys.implementation.cache_tag, abi, cflags)))


def python_build_key(source: str, versions: str, flags: list[str]) -> str:
    """The cache key of a build (12 hex digits, cbuild's :func:`build_key`): the source, the
    tool's and the C compiler's versions (``versions``), the rung's flags, the interpreter's
    ABI (:func:`interpreter_abi`), the CPU signature and :data:`RECIPE`."""
    # build_key's `real` (a C rung's element type) carries the ABI, `cdef` the recipe
    return build_key(source, versions, flags, [], interpreter_abi(), cpu_signature(), RECIPE)


def build_python(
    name: str, source: str, tool: str, flags: list[str] | None = None
) -> tuple[ModuleType, BuildFields]:
    """Build (or load from the cache) ``source`` as an extension module compiled by ``tool``.

    Args:
        name: the scenario name (part of the module name).
        source: the module's text: Cython (``.pyx``) for ``cython``, typed Python for ``mypyc``.
        tool: a key of :data:`TOOLS`.
        flags: extra C compiler flags (``CFLAGS``), after Python's own.

    Returns:
        (module, info): info is a build record (``summary.measured.BuildInfo``'s fields): the
        tool and the C compiler's versions, the C compile flags as run, the command that built
        it (run in the cache folder), the module name, whether it came from the cache, and the
        seconds the build or load took (``build_s``).

    Raises:
        Unavailable: the tool, setuptools or a C compiler is missing.
        BuildError: the source does not compile (the tool's or compiler's message is kept).
    """
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}; choose one of {', '.join(TOOLS)}")
    flags = list(flags or [])
    memo = (name, source, tool, tuple(flags))
    if memo in _loaded:
        loaded, recorded = _loaded[memo]
        return loaded, dict(recorded)
    version = tool_version(tool)
    cc = compiler(TOOLS[tool].language)
    cc_version = compiler_version(cc)
    module_name = f"_overhead_{name}_{python_build_key(source, f'{version}; {cc_version}', flags)}"
    folder, cache_warning = usable_cache_dir()
    target = folder / f"{module_name}{_suffix()}"
    started = time.perf_counter()
    made: list[BuildFields] = []
    cached = build_once(folder, module_name, target,
                        lambda: made.append(_compile(TOOLS[tool], module_name, source, flags,
                                                     cc, folder, started)))  # fmt: skip
    record = (
        made[0]
        if made
        else (
            _read_record(folder, module_name)
            or _record(_shown_command(TOOLS[tool], cc, flags, module_name), flags)
        )
    )
    module = _load(module_name, target)
    info: BuildFields = {
        "compiler": TOOLS[tool].label,
        "compiler_version": f"{version}; C: {cc_version}",
        **record,
        "link_flags": [],
        "module": module_name,
        "cached": cached,
        "build_s": time.perf_counter() - started,
        "vectorization": [],
    }
    if cache_warning:
        info["cache_warning"] = cache_warning
    _loaded[memo] = module, info
    return module, dict(info)


def compile_python(*args: Any, flags: list[str] | None = None) -> ModuleType:
    """A compiled-Python rung's build in its ``setup``: ``compile_python(NAME, SOURCE, TOOL)``
    builds (or loads) ``SOURCE`` with ``TOOL`` (:func:`build_python`), records how
    (``kit.builds``, the summary's ``build``) and returns the module.  A file written before
    the build record passes its ``BUILD_INFO`` dict first: it is filled as well."""
    legacy, (name, source, tool, *more) = split_legacy(args)
    module, info = build_python(name, source, tool, more[0] if more else flags)
    record_build(name, info)
    legacy.update(info)
    return module


_TWINS: dict[tuple[str, str], ModuleType] = {}


def python_twin(name: str, source: str) -> ModuleType:
    """``source`` run by the interpreter itself, as bytecode: the Python twin of a compiled
    rung that the counting phase counts (``counted_kernel``; Cython's untyped ``.pyx`` and
    mypyc's annotated ``.py`` are Python).  Its events, priced without the layers the
    compiler removes, are the rung's predicted time (``analysis.attribution``).  Made once per
    process and source."""
    key = (name, source)
    if key not in _TWINS:
        module = ModuleType(f"{name}_python_twin")
        exec(compile(source, f"<{name} run as Python>", "exec"), module.__dict__)
        _TWINS[key] = module
    return _TWINS[key]


BUILD_VARIABLES = frozenset(
    {"CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED", "LDCXXSHARED", "CPP", "AR",
     "ARFLAGS", "CC", "CXX"}
)  # fmt: skip
"""setuptools' variables that change what it compiles: a build sets its own (``CC``, ``CXX``,
``CFLAGS``, ``CXXFLAGS``) and drops the others a user's shell may hold, so the module is
exactly what its recorded command and cache key say (a ``CPPFLAGS=-O0`` built every rung at
``-O0`` under a key that did not show it; a rung's own flags go in its ``flags``)."""
NO_DEBUG_INFO = "-g0"
"""Put after Python's ``-g``: the modules are read, never debugged, and gcc spends a third of
a Cython memoryview module's compile on debug information (4.3 s → 3.0 s for
``cython_typed`` on a 2-vCPU Zen 4; the same machine code)."""


def python_cflags() -> list[str]:
    """The flags Python was built with (``sysconfig``'s ``CFLAGS``: its ``-O3`` among them).

    A build's ``CFLAGS`` starts with them: setuptools ≤ 65 adds ``$CFLAGS`` after them, newer
    ones (its ``distutils`` of 2025) use ``$CFLAGS`` *instead* of them once it is set, which
    built the rungs at gcc's default ``-O0`` (measured: ``cython_typed`` 4× slower)."""
    return shlex.split(sysconfig.get_config_var("CFLAGS") or "")


def _environment(spec: Tool, cc: str, flags: list[str]) -> dict[str, str]:
    """What a build sets in its environment: ``CC`` (and ``CXX`` for C++) and ``CFLAGS``
    (:func:`python_cflags`, :data:`NO_DEBUG_INFO`, then ``flags``); for C++ ``CXX`` and
    ``CXXFLAGS`` as well (newer setuptools compile C++ with them, older ones with ``CC`` and
    ``CFLAGS``)."""
    cflags = shlex.join([*python_cflags(), NO_DEBUG_INFO, *flags])
    if spec.real_cc and os.path.isabs(cc):
        cc = os.path.realpath(cc)
    cxx = {"CXX": cc, "CXXFLAGS": cflags} if spec.language == "C++" else {}
    return {"CC": cc, "CFLAGS": cflags, **cxx}


def _shown_command(spec: Tool, cc: str, flags: list[str], module_name: str) -> str:
    """The build command as it can be run again in the cache folder (the environment it sets
    first)."""
    script = f"{module_name}.setup.py"
    env = [f"{k}={v}" for k, v in _environment(spec, cc, flags).items()]
    return shlex.join([*env, sys.executable, script, "build_ext", "--inplace"])


def _record(command: str, flags: list[str]) -> dict[str, Any]:
    return {"command": command, "flags": flags}


def _compile(
    spec: Tool,
    module_name: str,
    source: str,
    flags: list[str],
    cc: str,
    folder: Path,
    started: float,
) -> BuildFields:
    """Run the build in a private folder inside ``folder`` and move into ``folder`` its source,
    setup script, generated C, log (``.log.txt``) and record (``.build.json``), the extension
    last; returns the record (command, the C compile flags as run, and ``cold_build_s``: seconds
    since ``started``, a ``time.perf_counter()`` taken when the build began)."""
    source_name, script_name = f"{module_name}{spec.suffix}", f"{module_name}.setup.py"
    # -save-temps=obj keeps the assembly gcc made of the module (beside its object file): the
    # compiled-rung model reads the hot loop of the very code that runs, at no extra compile
    inherited = {k: v for k, v in os.environ.items() if k not in BUILD_VARIABLES}
    env = {**inherited, **_environment(spec, cc, [*flags, SAVE_ASSEMBLY])}
    command = [sys.executable, script_name, "build_ext", "--inplace"]
    with private_build_folder(folder, "overhead-py-") as tmp:
        work = Path(tmp)
        (work / source_name).write_text(source, encoding="utf-8")
        script = spec.script.format(module=module_name, source=source_name)
        (work / script_name).write_text(script, encoding="utf-8")
        try:
            proc = subprocess.run(
                command, cwd=work, env=env, capture_output=True, text=True,
                timeout=BUILD_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise BuildError(
                f"{spec.label} build of {module_name} took over {BUILD_TIMEOUT_S} s"
            ) from None
        output = f"{proc.stdout}\n{proc.stderr}".strip()
        built = work / f"{module_name}{_suffix()}"
        if proc.returncode != 0 or not built.exists():
            raise _failure(spec, module_name, output)
        shown = _shown_command(spec, cc, flags, module_name)
        record = _record(shown, compile_flags(output, cc) or flags)
        record["cold_build_s"] = round(time.perf_counter() - started, 3)
        (work / f"{module_name}.log.txt").write_text(output, encoding="utf-8")
        (work / f"{module_name}.build.json").write_text(json.dumps(record), encoding="utf-8")
        generated = work / spec.generated_c.format(module=module_name)
        kept = [source_name, script_name, f"{module_name}.log.txt", f"{module_name}.build.json"]
        for name in kept:
            os.replace(work / name, folder / name)
        if generated.exists():  # .c, or .cpp for C++
            os.replace(generated, folder / f"{module_name}{generated.suffix}")
        own = work / spec.assembly.format(module=module_name) if spec.assembly else None
        if assembly := [own] if own and own.exists() else sorted(work.rglob("*.s")):
            os.replace(assembly[0], folder / f"{module_name}.s")  # the module's own (mypyc's one)
        os.replace(built, folder / built.name)  # last: the cache holds it from now
    return record


def compile_flags(output: str, cc: str) -> list[str]:
    """The options of the first C compile command in a build's ``output`` (setuptools prints
    each command it runs): Python's own ``CFLAGS``, the tool's and the rung's, without the
    include folders; [] when there is none."""
    head = cc.split()
    for line in output.splitlines():
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if words[: len(head)] == head and "-c" in words:
            skip = ("-c", "-o")
            return [w for w in words[len(head) :] if w.startswith("-") and w not in skip
                    and not w.startswith("-I")]  # fmt: skip
    return []


def _read_record(folder: Path, module_name: str) -> dict[str, Any] | None:
    """A cached build's record (``.build.json``), None where missing or unreadable."""
    try:
        record = json.loads((folder / f"{module_name}.build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("command"), str):
        return None
    found = _record(record["command"], [str(f) for f in record.get("flags", [])])
    if isinstance(seconds := record.get("cold_build_s"), int | float):
        found["cold_build_s"] = float(seconds)
    return found


def _failure(spec: Tool, module_name: str, output: str) -> Exception:
    """The exception for a failed build: its first line says what is wrong where the output
    tells (:func:`diagnostic`), then the output's last 2000 characters (the tool's or the
    compiler's message), with the fix when Python's headers are missing."""
    message = output[-2000:] or "no output"
    if "Python.h" in output:
        message += "\n(fix: install the Python development headers, e.g. python3-dev)"
    said = diagnostic(output, module_name)
    first = f"{spec.label} build failed: {said}" if said else f"{spec.label} build failed:"
    return BuildError(f"{first}\n{message}")


def diagnostic(output: str, module_name: str) -> str | None:
    """The line of a failed build's ``output`` that says what is wrong, with the module's
    file called SOURCE (its lines are SOURCE's, the ``SOURCE = r\"\"\"`` line being 1): the
    tool's ``file:line:col: message`` (Cython, mypyc), else the Python exception the output
    ends with and the line it names (Pythran parses SOURCE with Python's ``ast``), else a C
    or C++ compiler's first ``error:`` line; None when none is there."""
    lines = output.splitlines()
    own = re.compile(rf"^\s*{re.escape(module_name)}\.(?:pyx|py):(\d+(?::\d+)?):\s*(.+)$")
    for line in lines:
        if found := own.match(line):
            return f"SOURCE:{found[1]}: {found[2]}"
    for index in range(len(lines) - 1, -1, -1):
        if re.match(r"^[A-Za-z_][\w.]*(?:Error|Exception): ", lines[index]):
            where = next(
                (
                    m[1]
                    for x in reversed(lines[:index])
                    if (m := re.search(r'"<unknown>", line (\d+)', x))
                ),
                None,
            )
            return f"SOURCE:{where}: {lines[index]}" if where else lines[index].strip()
    return next((x.strip() for x in lines if ": error:" in x), None)
