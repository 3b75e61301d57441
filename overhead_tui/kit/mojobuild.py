"""Build a Mojo rung's source into a shared library with the ``mojo`` compiler, cached per machine
as the C rungs are, and load its C-ABI ``matmul`` through cffi.

A Mojo rung is a C rung in another language (``LANGUAGE = "Mojo"``, ``kit.c_rung``): its
``SOURCE`` exports ``matmul`` with the C signature every rung has (``cbuild.CDEF``) through
``@export`` and ``abi("C")``, over ``Scalar[real]`` elements, ``real`` being the dtype's
``DType`` (a line ``comptime real = DType.float64`` put before the source, as a C rung's
``real_t`` is a define).  ``mojo build --emit shared-lib`` compiles it (Mojo's defaults: its
``-O3`` and the host CPU's instructions, as ``-march=native``), ``mojo build --emit asm`` the
same source again for the assembly the compiled-rung model reads (``cbuild.built_assembly``);
cffi's ABI mode (``dlopen``) calls it, one call per product, so no C wrapper is compiled.

The compiler is ``$MOJO``, else the ``mojo`` beside the interpreter (what ``make mojo``
installs into the virtualenv: Mojo :data:`MOJO_VERSION`, pinned, since its syntax moves between
releases), else one on ``PATH``; none raises :class:`~overhead_tui.kit.cbuild.Unavailable`
with the install line, so the rung is skipped.  The cache key hashes the source, the
compiler's version, the flags, the dtype, the CPU and :data:`RECIPE`.  A cold build of a
Mojo rung took 7–8 s on a 2-vCPU Zen 3 (2026-12-07: 3.5 s for each of the two commands).
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from overhead_tui.kit.cbuild import (
    BuildError,
    BuildFields,
    Unavailable,
    build_key,
    cpu_signature,
    usable_cache_dir,
)
from overhead_tui.kit.folders import build_once, private_build_folder

MOJO_VERSION = "1.2.0"
"""The Mojo release the rungs are written for (``make mojo`` installs it)."""
INSTALL = f"make mojo (pip install mojo=={MOJO_VERSION} into the virtualenv, about 770 MB)"
"""The install line a missing compiler's message gives."""
RECIPE = "mojo build --emit shared-lib, then --emit asm; cffi dlopen (1)"
"""How a Mojo module is built: part of the cache key."""
BUILD_TIMEOUT_S = 300
"""Seconds one ``mojo build`` may take."""
DTYPES = {"float64": "DType.float64", "float32": "DType.float32"}
"""The dtypes a Mojo rung is built for: numpy's name → Mojo's ``DType``."""


def mojo_compiler() -> str:
    """The ``mojo`` to build with: ``$MOJO``, else the one beside ``sys.executable``, else one
    on ``PATH``.

    Raises:
        Unavailable: none is there (the message has the install line).
    """
    chosen = os.environ.get("MOJO")
    if chosen:
        if not shutil.which(chosen):
            raise Unavailable(f"MOJO={chosen} is not an executable (fix: point MOJO at mojo)")
        return chosen
    beside = Path(sys.executable).parent / "mojo"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("mojo")
    if found:
        return found
    raise Unavailable(
        f"no Mojo compiler beside {sys.executable} or on PATH (fix: {INSTALL}; for another "
        f"interpreter: {sys.executable} -m pip install mojo=={MOJO_VERSION}, or set MOJO to a mojo)"
    )


def _fix_for(mojo: str) -> str:
    """The fix of a ``mojo`` that does not work: the variable that chose it, else the install."""
    chosen = os.environ.get("MOJO")
    return f"unset MOJO or point it at mojo (now {chosen})" if chosen else INSTALL


@functools.cache
def mojo_version(mojo: str) -> str:
    """The first line ``mojo --version`` prints (``Mojo 1.2.0 (2016d0cd)``), asked once per
    process and compiler (80 ms each: a rung's worker sets it up again for its resident
    timings and its counting).

    Raises:
        Unavailable: it does not run."""
    try:
        proc = subprocess.run(
            [mojo, "--version"], capture_output=True, text=True, check=False, timeout=120
        )
    except OSError as exc:
        raise Unavailable(f"{mojo} does not run ({exc}; fix: {_fix_for(mojo)})") from None
    first = (proc.stdout.strip().splitlines() or [""])[0]
    if proc.returncode != 0 or not first.startswith("Mojo "):
        said = f"said {first!r}" if first else "said nothing"
        raise Unavailable(
            f"{mojo} is not a working Mojo compiler ({mojo} --version {said}, exit "
            f"{proc.returncode}; fix: {_fix_for(mojo)})"
        )
    return first


def commands(mojo: str, module_name: str, flags: list[str]) -> tuple[list[str], list[str]]:
    """The two builds, run in the build folder: the shared library, then its assembly."""
    source = f"{module_name}.mojo"
    library = [mojo, "build", source, "--emit", "shared-lib", "-o", _library(module_name)]
    assembly = [mojo, "build", source, "--emit", "asm", "-o", f"{module_name}.s"]
    return [*library, *flags], [*assembly, *flags]


def build(
    name: str, source: str, flags: list[str], dtype: str, declarations: str
) -> tuple[Any, Any, BuildFields]:
    """Build (or load from the cache) a Mojo rung: (ffi, lib, info) as ``cbuild.build`` gives
    for a C one; ``declarations`` are the C declarations of what it exports.

    Raises:
        Unavailable: no Mojo compiler, or the dtype is not one of :data:`DTYPES`.
        BuildError: the source does not compile (its first error names SOURCE's line).
    """
    from cffi import FFI

    if dtype not in DTYPES:
        raise Unavailable(f"a Mojo rung is built for {', '.join(DTYPES)}, not {dtype}")
    mojo = mojo_compiler()
    version = mojo_version(mojo)
    key = build_key(source, version, flags, [], dtype, cpu_signature(), f"{RECIPE}\0{declarations}")
    module_name = f"_overhead_{name}_{dtype}_{key}"
    folder, cache_warning = usable_cache_dir()
    library = folder / _library(module_name)
    built, assembled = commands(mojo, module_name, flags)
    info: BuildFields = {
        "compiler": mojo,
        "compiler_version": version,
        "flags": flags,
        "link_flags": [],
        "command": f"{shlex.join(built)} && {shlex.join(assembled)}",
        "module": module_name,
        "vectorization": [],
    }
    if cache_warning:
        info["cache_warning"] = cache_warning
    started = time.perf_counter()
    text = f"comptime real = {DTYPES[dtype]}\n{source}"
    steps = (built, assembled)
    cached = build_once(folder, module_name, library,
                        lambda: _compile(module_name, text, folder, steps, started,
                                         version))  # fmt: skip
    seconds = folder / f"{module_name}.secs.txt"
    if seconds.exists():  # written by the build that made it
        info["cold_build_s"] = float(seconds.read_text())
    info["cached"] = cached
    ffi = FFI()
    ffi.cdef(declarations)
    lib = ffi.dlopen(str(library))
    for symbol in re.findall(r"(\w+)\s*\(", declarations):  # each one the kit will call
        if not hasattr(lib, symbol):
            raise BuildError(
                f"the Mojo source exports no {symbol}; fix: export it as C's {symbol}: "
                f'`@export` and `abi("C")` on `def {symbol}(...)` (see mojo_naive.py)'
            )
    info["build_s"] = time.perf_counter() - started
    return ffi, lib, info


def _library(module_name: str) -> str:
    return f"{module_name}.mojo.so"


def _compile(
    module_name: str,
    source: str,
    folder: Path,
    steps: tuple[list[str], list[str]],
    started: float,
    version: str,
) -> None:
    """Run both builds of ``source`` in a private folder, then move the source, the assembly
    and the seconds since ``started`` (``.secs.txt``) into ``folder``, the library last (the
    cache holds it from then on)."""
    with private_build_folder(folder, "overhead-mojo-") as tmp:
        work = Path(tmp)
        (work / f"{module_name}.mojo").write_text(source, encoding="utf-8")
        for step in steps:
            try:
                proc = subprocess.run(
                    step, cwd=work, capture_output=True, text=True, check=False,
                    timeout=BUILD_TIMEOUT_S, stdin=subprocess.DEVNULL,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                took = f"mojo build of {module_name} took over {BUILD_TIMEOUT_S} s"
                raise BuildError(took) from None
            if proc.returncode != 0:
                said = failure(f"{proc.stdout}\n{proc.stderr}", module_name)
                if not version.startswith(f"Mojo {MOJO_VERSION} "):
                    said += f" (the rungs are written for Mojo {MOJO_VERSION}; this is {version})"
                raise BuildError(said)
            made = work / step[step.index("-o") + 1]
            if not made.is_file():
                raise BuildError(
                    f"{step[0]} {' '.join(step[1:4])} exited 0 but wrote no {made.name}: not "
                    f"the Mojo compiler? (fix: {_fix_for(step[0])})"
                )
        (work / f"{module_name}.secs.txt").write_text(f"{time.perf_counter() - started:.3f}")
        for kept in (f"{module_name}.mojo", f"{module_name}.s", f"{module_name}.secs.txt"):
            os.replace(work / kept, folder / kept)
        os.replace(work / _library(module_name), folder / _library(module_name))


def failure(output: str, module_name: str) -> str:
    """A failed build's message: its first error as ``SOURCE:line:col: error: …`` (the line of
    SOURCE, the definition of ``real`` before it not counted), then the other errors."""
    own = re.compile(rf"^.*{re.escape(module_name)}\.mojo:(\d+):(\d+): (error: .*)$")
    errors = []
    for line in output.splitlines():
        if found := own.match(line):
            errors.append(f"SOURCE:{int(found[1]) - 1}:{found[2]}: {found[3]}")
        elif "error:" in line:
            errors.append(line.strip())
    said = errors or [(output.strip().splitlines() or ["no output"])[-1]]
    return "mojo build failed: " + "\n".join(said[:10])[:2000]
