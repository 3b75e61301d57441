"""Compile C rungs with the system compiler through cffi (API mode), cached per machine.

A C scenario calls :func:`build` from its ``setup``.  The extension is cached in the user
cache dir under a name that hashes the source, the compiler's version, the flags, the dtype
and the CPU (:func:`cpu_signature`: ``-march=native`` code built on another CPU sharing the
home folder may not run here), so a second run does not recompile and any change does.  An
unwritable cache dir falls back to a private temporary one (noted in the build info).

cffi writes the extension's C source (``FFI.emit_c_code``: its wrappers around the rung's
source, which keeps its own line numbers as ``rung.c``); one compiler command, built here
(:func:`compile_command`: the rung's flags, Python's include folder, ``-shared``, the
interpreter's ``EXT_SUFFIX``), compiles and links it, and is recorded as run.  GCC also
reports the loops it vectorised (``-fopt-info-vec-optimized``; a compiler that does not know
the flag is asked without it).

No compiler, no OpenMP, or a CPU without what a rung needs raises :class:`Unavailable`,
which the worker reports as ``skipped`` with the reason, never as an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from overhead_tui.kit.folders import build_lock, private_build_folder

if TYPE_CHECKING:
    import numpy as np
    from cffi import FFI
    from numpy.typing import NDArray

    from overhead_tui.summary.measured import BuildInfo

CDEF = "void matmul(const {real} *a, const {real} *b, {real} *c, int n);"
"""The C signature every rung exports: row-major n × n matrices, C = A·B; the sources use
``real_t`` for the element type, defined on the command line per dtype."""


BuildFields = dict[str, object]
"""A build's record as the kit's build functions make it: :class:`BuildInfo`'s fields by name
(``compiler``, ``flags``, ``command``, ``cached``, ``cold_build_s`` …), plus any a legacy
``BUILD_INFO`` dict of a scenario file carries (``kit.builds.record_build`` keeps the known)."""


class MatmulLibrary(Protocol):
    """A rung's library as cffi calls it (:data:`CDEF`): the pointers are cffi's views of
    numpy arrays (:func:`pointers`)."""

    def matmul(self, a: object, b: object, c: object, n: int, /) -> None: ...


class Unavailable(Exception):
    """This rung cannot run on this machine (the message says why and how to fix it)."""


class BuildError(Exception):
    """The compiler rejected the source; the message carries the compiler's own output."""


COMPILERS = {"C": ("CC", ("cc", "gcc"), "gcc"), "C++": ("CXX", ("c++", "g++"), "g++")}
"""Language -> (the variable naming its compiler, the names looked up on PATH, the Debian
package that installs one)."""
SOURCE_LANGUAGE = {"C": "c", "C++": "c++"}
"""Language -> what ``-x`` calls it: a C++ rung's source (and the module cffi writes around
it, which compiles as C++ too) is compiled as C++ whatever its file is named."""


def compiler(language: str = "C") -> str:
    """The compiler of ``language`` (a key of :data:`COMPILERS`): ``$CC``, else ``cc`` or
    ``gcc`` on PATH for C; ``$CXX``, else ``c++`` or ``g++`` for C++ (Pythran's builds).

    Raises:
        Unavailable: none is found.
    """
    variable, names, package = COMPILERS[language]
    chosen = os.environ.get(variable)
    if chosen:
        if not shutil.which(chosen.split()[0]):
            raise Unavailable(
                f"{variable}={chosen} is not an executable "
                f"(fix: point {variable} at a {language} compiler)"
            )
        return chosen
    found = next((path for name in names if (path := shutil.which(name))), None)
    if not found:
        raise Unavailable(
            f"no {language} compiler found (fix: apt-get install {package}, or set {variable})"
        )
    return found


def compiler_version(cc: str) -> str:
    """The first line of ``cc --version``."""
    proc = subprocess.run(
        [*cc.split(), "--version"], capture_output=True, text=True, check=False, timeout=60
    )
    return (proc.stdout.splitlines() or ["unknown"])[0]


CPUINFO = Path("/proc/cpuinfo")
CPU_FIELDS = (
    "vendor_id",
    "cpu family",
    "model",
    "model name",
    "stepping",
    "flags",
    "CPU implementer",
    "CPU architecture",
    "CPU variant",
    "CPU part",
    "Features",
)
"""The /proc/cpuinfo fields (x86 and ARM) that identify the CPU a native build targets."""


def cpu_flags(path: Path = CPUINFO) -> set[str]:
    """The instruction-set flags of the first CPU in /proc/cpuinfo (x86 ``flags``, ARM
    ``Features``); empty where there is none: what a rung or probe for one instruction family
    checks before it builds."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_signature(path: Path = CPUINFO) -> str:
    """What identifies this CPU for code the compiler tuned to it: the first processor's model
    and feature flags from /proc/cpuinfo, else ``platform.machine()`` and ``processor()``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    fields = []
    for line in text.strip().split("\n\n")[0].splitlines():
        key, _, value = line.partition(":")
        if key.strip() in CPU_FIELDS:
            fields.append(f"{key.strip()}: {value.strip()}")
    return "\n".join(fields) or f"{platform.machine()} {platform.processor()}"


RECIPE = "emit_c_code + one cc command (2)"
"""How a build is made: part of the cache key, so a module built another way (the earlier
setuptools builds, with Python's own CFLAGS) is never taken for one of these."""
REPORT_FLAG = "-fopt-info-vec-optimized"
"""GCC's report of the loops it vectorised (on stderr)."""
SOURCE_NAME = "rung.c"
"""The file name the compiler's messages give the rung's own source (its line numbers)."""


def build_key(
    source: str,
    version: str,
    flags: list[str],
    link_flags: list[str],
    real: str,
    cpu: str,
    cdef: str = CDEF,
) -> str:
    """The cache key of a build (12 hex digits): changes with the source, the compiler's
    version, the compile and link flags, the element type, the CPU signature, the exported
    declarations (``cdef``) and :data:`RECIPE`."""
    parts = [RECIPE, source, version, *flags, "--link", *link_flags, real, cpu]
    parts += [] if cdef == CDEF else ["--cdef", cdef]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


def usable_cache_dir() -> tuple[Path, str | None]:
    """Where built C rungs are kept, created: (user cache dir / cbuild, None), or a private
    temporary one when that is not writable: (folder, a warning naming it and the fix); the
    parent's warning where it moved the cache itself before starting this worker.

    Raises:
        Unavailable: no writable folder at all.
    """
    from overhead_tui.kit.folders import (
        CACHE_WARNING_ENV,
        private_temp_cache,
        user_cache_dir,
        writable_problem,
    )

    path = user_cache_dir() / "cbuild"
    problem = writable_problem(path)
    if problem is None:  # the parent's own fallback, if it moved the cache (folders.ensure_cache)
        return path, os.environ.get(CACHE_WARNING_ENV) or None
    fix = "fix: set XDG_CACHE_HOME to a writable folder"
    fallback = private_temp_cache()
    if fallback is None or writable_problem(fallback / "overhead-tui" / "cbuild") is not None:
        raise Unavailable(f"the build cache {path} is not writable ({problem}); {fix}")
    fallback = fallback / "overhead-tui" / "cbuild"
    warning = f"the build cache {path} is not writable ({problem}); built in {fallback}; {fix}"
    return fallback, warning


def compile_command(
    cc: str, c_file: str, target: str, flags: list[str], link_flags: list[str], report: bool
) -> list[str]:
    """The one command that compiles and links a module's C source into an extension.

    Args:
        cc: the compiler (may carry options, as ``$CC`` may).
        c_file, target: the C source and the extension file (relative to the build folder).
        flags: compile flags (the rung's, e.g. ``-O3 -march=native``, and the defines).
        link_flags: linker flags (``-fopenmp``), after the source.
        report: ask for GCC's vectorisation report (:data:`REPORT_FLAG`).
    """
    paths = sysconfig.get_paths()
    includes = dict.fromkeys([paths["include"], paths.get("platinclude", paths["include"])])
    shared = (
        ["-bundle", "-undefined", "dynamic_lookup"] if sys.platform == "darwin" else ["-shared"]
    )
    return [
        *cc.split(),
        *flags,
        *KEEP_ASSEMBLY,
        "-fPIC",
        *(f"-I{folder}" for folder in includes),
        c_file,
        *shared,
        "-o",
        target,
        *link_flags,
        *([REPORT_FLAG] if report else []),
    ]


SAVE_ASSEMBLY = "-save-temps=obj"
"""The C compile flag that keeps gcc's (and clang's) assembly of a module beside it."""
KEEP_ASSEMBLY = ("-g", SAVE_ASSEMBLY)
"""Flags of every build: gcc's assembly of the module is kept beside it (``-save-temps=obj``;
``-g``: its ``.loc`` lines name the hot loop's source line, and debug information does not
change the code gcc generates), so the compiled-rung model reads the hot loop of the very
code that runs without compiling the source again (an Eigen rung's second compile took
3.7 s, 2026-12-07)."""


def built_assembly(build: BuildInfo) -> str | None:
    """The compiler's assembly of a module built here (``build``: the kit's record of it),
    kept by :data:`SAVE_ASSEMBLY`; None when it is not there (a build made before it was
    kept, a compiler that keeps none)."""
    module = build.module
    folder, _ = usable_cache_dir()
    path = folder / f"{module}.s"
    return path.read_text(encoding="utf-8", errors="replace") if module and path.exists() else None


def build(
    name: str,
    source: str,
    flags: list[str],
    dtype: str,
    link_flags: list[str] | None = None,
    cdef: str = CDEF,
    language: str = "C",
) -> tuple[Any, Any, BuildFields]:
    """Build (or load from the cache) the extension of a C (or C++) rung.

    Args:
        name: the scenario name (part of the module name).
        source: C source defining ``matmul`` with element type ``real_t``.
        flags: compiler flags, e.g. ``["-O3", "-march=native"]``.
        dtype: ``float64`` or ``float32`` (sets ``real``).
        link_flags: extra linker flags (``-fopenmp``).
        cdef: the C declarations the module exports (``{real}`` is the element type);
            :data:`CDEF` (``matmul``) for a rung, a probe's own functions for a probe.
        language: ``C`` or ``C++`` (:data:`COMPILERS`): a C++ rung's source defines
            ``extern "C" void matmul(...)`` and is built with the C++ compiler (a Mojo rung
            is built by ``kit.mojobuild``).

    Returns:
        (ffi, lib, info) where info records the compiler, its version, the flags, the exact
        compiler command that built the module (run in the cache folder), whether it came
        from the cache, the build time (s) and the vectorisation report.

    Raises:
        Unavailable: no compiler, or the flags need something this toolchain lacks.
        BuildError: the source does not compile (the compiler's message is kept).
    """
    cc = compiler(language)
    version = compiler_version(cc)
    real = "double" if dtype == "float64" else "float"
    if language != "C":  # before the source file: it is compiled as that language
        flags = [*flags, "-x", SOURCE_LANGUAGE[language]]
    # not `real`: Python.h's Py_complex has a member so named
    defines = [f"-Dreal_t={real}", f"-DREAL_BYTES={8 if real == 'double' else 4}"]
    link = link_flags or []
    declarations = cdef.format(real=real)
    key = build_key(source, version, flags, link, real, cpu_signature(), cdef)
    module_name = f"_overhead_{name}_{dtype}_{key}"
    folder, cache_warning = usable_cache_dir()
    c_name, target = f"{module_name}.c", f"{module_name}{_suffix()}"
    command = compile_command(cc, c_name, target, [*flags, *defines], link, report=True)
    info: BuildFields = {
        "compiler": cc,
        "compiler_version": version,
        "flags": flags,
        "link_flags": link,
        "command": shlex.join(command),  # the one that built the module, once known
        "module": module_name,
    }
    if cache_warning:
        info["cache_warning"] = cache_warning
    started = time.perf_counter()
    existing = _find(folder, module_name)
    if existing is None:
        with build_lock(folder, module_name):  # another process may be building it
            existing = _find(folder, module_name)
            if existing is None:
                info["command"], info["vectorization"] = _compile(
                    command, module_name, source, folder, declarations, cc
                )
                info["cached"] = False
                info["cold_build_s"] = time.perf_counter() - started
                (folder / f"{module_name}.secs.txt").write_text(f"{info['cold_build_s']:.3f}")
                existing = _find(folder, module_name)
    if "cached" not in info:
        info["cached"] = True
        info["command"] = _read(folder, module_name, "cmd") or info["command"]
        info["vectorization"] = _read(folder, module_name, "vec").splitlines()
        with contextlib.suppress(ValueError):  # an older cache has no .secs.txt
            info["cold_build_s"] = float(_read(folder, module_name, "secs"))
    if existing is None:
        raise BuildError(f"{cc} built {module_name} but no extension file was found")
    try:
        module = _load(module_name, existing)
    except ImportError as exc:  # built, but it does not load (CXX=gcc: no C++ runtime linked)
        said = str(exc).splitlines()[0][:300]
        hint = (
            f"{cc} linked C++ without its runtime: point CXX at g++ or c++"
            if re.search(r"undefined symbol: (_Z|__gxx_|__cxa_)", said)  # C++'s own symbols
            else _compiler_fix(cc)
        )
        raise BuildError(f"the module {cc} built does not load ({said}); fix: {hint}") from None
    info["build_s"] = time.perf_counter() - started
    return module.ffi, module.lib, info


def _suffix() -> str:
    return str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def _compile(
    command: list[str], module_name: str, source: str, folder: Path, declarations: str, cc: str
) -> tuple[str, list[str]]:
    """Write the module's C source and run ``command`` (:func:`compile_command`) in a private
    folder, then move the source and the extension into ``folder`` with the command as run
    (``.cmd.txt``) and the vectorisation report (``.vec.txt``): (command, report lines)."""
    from cffi import FFI

    c_name, target = f"{module_name}.c", f"{module_name}{_suffix()}"
    ffi = FFI()
    ffi.cdef(declarations)
    after = "@overhead_after@"  # a #line after the rung's source gives back the file's own
    ffi.set_source(module_name, f'#line 1 "{SOURCE_NAME}"\n{source}\n#line {after} "{c_name}"')
    with private_build_folder(folder, "overhead-cc-") as tmp:
        c_file = Path(tmp) / c_name
        with contextlib.redirect_stdout(io.StringIO()):  # cffi prints "generating …"
            ffi.emit_c_code(str(c_file))
        lines = c_file.read_text().split("\n")
        mark = next(i for i, line in enumerate(lines) if after in line)
        lines[mark] = lines[mark].replace(after, str(mark + 2))
        c_file.write_text("\n".join(lines))
        proc = _run(command, tmp)
        if proc.returncode != 0 and "fopt-info" in proc.stderr:  # not GCC: asked without
            command = [c for c in command if c != REPORT_FLAG]
            proc = _run(command, tmp)
        if proc.returncode != 0:
            raise _failure(cc, proc.stderr.strip(), command)
        report = [
            line
            for line in proc.stderr.splitlines()
            if line.startswith(f"{SOURCE_NAME}:") and ("vectorized" in line or "optimized" in line)
        ]
        (folder / f"{module_name}.cmd.txt").write_text(shlex.join(command))
        (folder / f"{module_name}.vec.txt").write_text("\n".join(report))
        os.replace(c_file, folder / c_name)
        if assembly := sorted(Path(tmp).glob("*.s")):  # -save-temps=obj: the module's own
            os.replace(assembly[0], folder / f"{module_name}.s")
        if not (Path(tmp) / target).is_file():  # a "compiler" that does nothing (CC=/bin/true)
            raise BuildError(
                f"{cc} exited 0 but wrote no {target}: not a compiler? (fix: {_compiler_fix(cc)})"
            )
        os.replace(Path(tmp) / target, folder / target)  # last: the cache holds it from now
    return shlex.join(command), report


def _run(command: list[str], folder: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, cwd=folder, capture_output=True, text=True, check=False, timeout=300
    )


def _compiler_fix(cc: str) -> str:
    """The fix when ``cc`` is not a working compiler: the variable that chose it, if one did."""
    chosen = [name for name, (env, _, _) in COMPILERS.items() if os.environ.get(env) == cc]
    if chosen:
        variable = COMPILERS[chosen[0]][0]
        return f"point {variable} at a {chosen[0]} compiler, or unset it (now {cc})"
    return f"install a C and a C++ compiler ({', '.join(c[2] for c in COMPILERS.values())})"


def _failure(cc: str, message: str, command: list[str]) -> Exception:
    """The exception for a failed compiler ``command``: OpenMP missing is :class:`Unavailable`."""
    if not message.strip():  # a "compiler" that fails without a word (CC=/bin/false)
        fix = _compiler_fix(cc)
        return BuildError(f"{cc} failed and said nothing: not a compiler? (fix: {fix})")
    last = (message.splitlines() or ["?"])[-1][:200]
    if "-fopenmp" in command and "omp" in message.lower():
        if any(m in message for m in ("collect2", "cannot find -l", "undefined reference")):
            return Unavailable(f"OpenMP does not link with {cc}: {last}")
        return Unavailable(f"no OpenMP in {cc}: {last}")
    if "Python.h" in message:
        message += "\n(fix: install the Python development headers, e.g. python3-dev)"
    return BuildError(f"{cc} failed:\n{message[-2000:]}")


def _read(folder: Path, module_name: str, kind: str) -> str:
    """A cached build's ``.cmd.txt``, ``.vec.txt`` or ``.secs.txt`` ("" where missing)."""
    path = folder / f"{module_name}.{kind}.txt"
    return path.read_text().strip() if path.exists() else ""


def _find(folder: Path, module_name: str) -> Path | None:
    matches = sorted(folder.glob(f"{module_name}*.so"))
    return matches[0] if matches else None


def _load(module_name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def pointers(ffi: FFI, *arrays: NDArray[np.generic]) -> list[object]:
    """cffi views of the data of C-contiguous numpy arrays (no copy).

    Typed ``from_buffer`` views keep their array alive; a ``cast`` would not.
    """
    out = []
    for array in arrays:
        ctype = "double[]" if array.dtype.itemsize == 8 else "float[]"
        out.append(ffi.from_buffer(ctype, array))
    return out


def assembly(source: str, flags: list[str], dtype: str = "float64", language: str = "C") -> str:
    """The assembly the compiler makes of ``source`` on its own (``cc -S``, the same
    ``flags``): the generated code a probe checks (its vector width,
    the instructions of its chains), without cffi's wrappers; ``real_t`` is the ``dtype``'s
    type.  Kept in the build cache under the same kind of key as a build (source, compiler
    version, flags, CPU).

    Raises:
        Unavailable: no compiler.
        BuildError: the source does not compile.
    """
    cc = compiler(language)
    real, size = ("double", 8) if dtype == "float64" else ("float", 4)
    command = [*cc.split(), *flags, f"-Dreal_t={real}", f"-DREAL_BYTES={size}"]
    command += ["-S", "-o", "-", "-x", SOURCE_LANGUAGE[language], "-"]
    key = build_key(source, compiler_version(cc), command, [], real, cpu_signature(), "-S")
    folder, _ = usable_cache_dir()
    cached = folder / f"_overhead_asm_{key}.s"
    with contextlib.suppress(OSError):
        return cached.read_text()
    proc = subprocess.run(
        command, input=source, capture_output=True, text=True, check=False, timeout=300
    )
    if proc.returncode != 0:
        raise _failure(cc, proc.stderr.strip(), command)
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(proc.stdout)
        os.replace(partial, cached)
    return proc.stdout
