"""Compile C rungs with the system compiler through cffi (API mode), cached per machine.

A C scenario calls :func:`build` from its ``setup``.  The extension is cached in the user
cache dir under a name that hashes the source, the compiler's version, the flags, the dtype
and the CPU (:func:`cpu_signature`: ``-march=native`` code built on another CPU sharing the
home folder may not run here), so a second run does not recompile and any change does.  An
unwritable cache dir falls back to a private temporary one (noted in the build info).  The
compiler is run once on its own first, to surface its own error message and (for optimised
builds) GCC's vectorisation report (``-fopt-info-vec-optimized``); cffi then builds the module.

No compiler, no OpenMP, or a CPU without what a rung needs raises :class:`Unavailable`,
which the worker reports as ``skipped`` with the reason, never as an error.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

CDEF = "void matmul(const {real} *a, const {real} *b, {real} *c, int n);"
"""The C signature every rung exports: row-major n × n matrices, C = A·B; the sources use
``real_t`` for the element type, defined on the command line per dtype."""


class Unavailable(Exception):
    """This rung cannot run on this machine (the message says why and how to fix it)."""


class BuildError(Exception):
    """The compiler rejected the source; the message carries the compiler's own output."""


def compiler() -> str:
    """The C compiler: ``$CC``, else ``cc`` or ``gcc`` on PATH.

    Raises:
        Unavailable: none is found.
    """
    cc = os.environ.get("CC")
    if cc:
        if not shutil.which(cc.split()[0]):
            raise Unavailable(f"CC={cc} is not an executable (fix: point CC at a C compiler)")
        return cc
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise Unavailable("no C compiler found (fix: apt-get install gcc, or set CC)")
    return cc


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


def build_key(
    source: str, version: str, flags: list[str], link_flags: list[str], real: str, cpu: str
) -> str:
    """The cache key of a build (12 hex digits): changes with the source, the compiler's
    version, the compile and link flags, the element type and the CPU signature."""
    parts = [source, version, *flags, "--link", *link_flags, real, cpu]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:12]


def usable_cache_dir() -> tuple[Path, str | None]:
    """Where built C rungs are kept, created: (user cache dir / cbuild, None), or a private
    temporary one when that is not writable: (folder, a warning naming it and the fix).

    Raises:
        Unavailable: no writable folder at all.
    """
    from overhead_tui.engine.folders import private_temp_cache, user_cache_dir, writable_problem

    path = user_cache_dir() / "cbuild"
    problem = writable_problem(path)
    if problem is None:
        return path, None
    fix = "fix: set XDG_CACHE_HOME to a writable folder"
    fallback = private_temp_cache()
    if fallback is None or writable_problem(fallback / "overhead-tui" / "cbuild") is not None:
        raise Unavailable(f"the build cache {path} is not writable ({problem}); {fix}")
    fallback = fallback / "overhead-tui" / "cbuild"
    warning = f"the build cache {path} is not writable ({problem}); built in {fallback}; {fix}"
    return fallback, warning


def build(
    name: str, source: str, flags: list[str], dtype: str, link_flags: list[str] | None = None
) -> tuple[Any, Any, dict[str, Any]]:
    """Build (or load from the cache) the extension of a C rung.

    Args:
        name: the scenario name (part of the module name).
        source: C source defining ``matmul`` with element type ``real_t``.
        flags: compiler flags, e.g. ``["-O3", "-march=native"]``.
        dtype: ``float64`` or ``float32`` (sets ``real``).
        link_flags: extra linker flags (``-fopenmp``).

    Returns:
        (ffi, lib, info) where info records the compiler, its version, the flags, the exact
        compile command, whether it came from the cache, the build time (s) and the
        vectorisation report.

    Raises:
        Unavailable: no compiler, or the flags need something this toolchain lacks.
        BuildError: the source does not compile (the compiler's message is kept).
    """
    from cffi import FFI

    cc = compiler()
    version = compiler_version(cc)
    real = "double" if dtype == "float64" else "float"
    # not `real`: Python.h's Py_complex has a member so named
    defines = [f"-Dreal_t={real}", f"-DREAL_BYTES={8 if real == 'double' else 4}"]
    key = build_key(source, version, flags, link_flags or [], real, cpu_signature())
    module_name = f"_overhead_{name}_{dtype}_{key}"
    folder, cache_warning = usable_cache_dir()
    import sysconfig

    python_cflags = (sysconfig.get_config_var("CFLAGS") or "").split()
    # setuptools puts Python's own CFLAGS first; ours come after, and the last -O wins
    command = [
        *cc.split(),
        *python_cflags,
        *flags,
        *defines,
        "-fPIC",
        "-c",
        f"{module_name}.c",
        "&&",
        "link",
        *(link_flags or []),
    ]
    info: dict[str, Any] = {
        "compiler": cc,
        "compiler_version": version,
        "flags": flags,
        "link_flags": link_flags or [],
        "command": " ".join(command),
        "module": module_name,
    }
    if cache_warning:
        info["cache_warning"] = cache_warning
    existing = _find(folder, module_name)
    started = time.perf_counter()
    if existing is None:
        info["vectorization"] = _check_compile(cc, source, flags + defines, link_flags or [])
        ffi = FFI()
        ffi.cdef(CDEF.format(real=real))
        ffi.set_source(
            module_name,
            source,
            extra_compile_args=flags + defines,
            extra_link_args=link_flags or [],
        )
        with _quiet_fd(1):
            try:
                ffi.compile(tmpdir=str(folder), verbose=False)
            except Exception as exc:  # setuptools raises several types here
                raise BuildError(f"cffi build of {name} failed: {exc}") from None
        existing = _find(folder, module_name)
        info["cached"] = False
    else:
        info["cached"] = True
        info["vectorization"] = _read_report(folder, module_name)
    if existing is None:
        raise BuildError(f"cffi built {module_name} but no extension file was found")
    (folder / f"{module_name}.vec.txt").write_text("\n".join(info["vectorization"]))
    module = _load(module_name, existing)
    info["build_s"] = time.perf_counter() - started
    return module.ffi, module.lib, info


def _check_compile(cc: str, source: str, flags: list[str], link_flags: list[str]) -> list[str]:
    """Compile the source alone: the compiler's error as a BuildError, else the vector report."""
    with tempfile.TemporaryDirectory(prefix="overhead-cc-") as tmp:
        c_file = Path(tmp) / "rung.c"
        c_file.write_text(source)
        base = [*cc.split(), *flags, "-fPIC", "-c", str(c_file), "-o", str(Path(tmp) / "rung.o")]
        # GCC's vectorisation report; a compiler that does not know the flag is asked without
        proc = subprocess.run(
            [*base, "-fopt-info-vec-optimized"],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        if proc.returncode != 0 and "fopt-info" in proc.stderr:
            proc = subprocess.run(base, capture_output=True, text=True, check=False, timeout=300)
        if proc.returncode != 0:
            message = proc.stderr.strip().replace(str(c_file), "rung.c")
            if "-fopenmp" in flags and "omp" in message.lower():
                raise Unavailable(f"no OpenMP in {cc}: {message.splitlines()[-1][:200]}")
            raise BuildError(f"{cc} failed:\n{message[-2000:]}")
        if "-fopenmp" in link_flags:
            probe = subprocess.run(
                [
                    *cc.split(),
                    "-fopenmp",
                    str(Path(tmp) / "rung.o"),
                    "-shared",
                    "-o",
                    str(Path(tmp) / "rung.so"),
                ],
                capture_output=True,
                text=True,
                check=False,
                timeout=300,
            )
            if probe.returncode != 0:
                raise Unavailable(
                    f"OpenMP does not link with {cc}: "
                    f"{(probe.stderr.strip().splitlines() or ['?'])[-1][:200]}"
                )
        return [
            line.replace(str(c_file), "rung.c")
            for line in proc.stderr.splitlines()
            if "vectorized" in line or "optimized" in line
        ]


def _read_report(folder: Path, module_name: str) -> list[str]:
    path = folder / f"{module_name}.vec.txt"
    return path.read_text().splitlines() if path.exists() else []


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


class _quiet_fd:
    """Point a file descriptor at stderr for a while (setuptools prints to fd 1)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.saved = -1

    def __enter__(self) -> None:
        sys.stdout.flush()
        self.saved = os.dup(self.fd)
        os.dup2(2, self.fd)

    def __exit__(self, *exc: object) -> None:
        os.dup2(self.saved, self.fd)
        os.close(self.saved)


def pointers(ffi: Any, *arrays: Any) -> list[Any]:
    """cffi views of the data of C-contiguous numpy arrays (no copy).

    Typed ``from_buffer`` views keep their array alive; a ``cast`` would not.
    """
    out = []
    for array in arrays:
        ctype = "double[]" if array.dtype.itemsize == 8 else "float[]"
        out.append(ffi.from_buffer(ctype, array))
    return out


def prepare(
    build_info: dict[str, Any],
    name: str,
    source: str,
    flags: list[str],
    link_flags: list[str],
    a: Any,
    b: Any,
) -> tuple[Any, ...]:
    """A C rung's ``setup``: build (or load) it, record how in ``build_info``, and return the
    kernel's arguments: (lib, views of A, B and C, C itself, n)."""
    import numpy as np

    ffi, lib, info = build(name, source, flags, str(a.dtype), link_flags)
    build_info.update(info)
    c = np.zeros_like(a)
    pa, pb, pc = pointers(ffi, a, b, c)
    return lib, pa, pb, pc, c, a.shape[0]


def matmul(lib: Any, pa: Any, pb: Any, pc: Any, c: Any, n: int) -> Any:
    """A C rung's ``kernel``: one call of the compiled ``matmul``; returns C (numpy)."""
    lib.matmul(pa, pb, pc, n)
    return c
