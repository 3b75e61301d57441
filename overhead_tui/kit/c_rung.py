"""A C rung: a scenario whose kernel is C ``SOURCE`` built with ``FLAGS`` (and ``LINK_FLAGS``);
a C++ rung is one that declares ``LANGUAGE = "C++"`` besides (its ``matmul`` ``extern "C"``), a
Mojo rung ``LANGUAGE = "Mojo"`` (its ``matmul`` exported with ``abi("C")``, built by
``kit.mojobuild``), and a rung that includes a library's headers declares them (``HEADERS``:
:func:`missing_headers`).

A scenario file that declares ``SOURCE`` and ``FLAGS`` and defines no ``kernel`` is a C rung
by its declarations alone: the worker completes it (:func:`complete`) with the ``setup``
and ``kernel`` every C rung had written out (build with :func:`prepare`, call with
:func:`matmul`; C as it is is every scenario's default ``to_numpy``); its build is recorded in
``kit.builds``.  ``BLAS_THREADS = 1`` (an OpenMP rung's) limits numpy's BLAS to that many
threads first: OpenBLAS threads woken by numpy in the worker (its validation) spin for a while
after each call and would compete with the rung's own team on the same cores.  A file that
needs another step before the build (a CPU check) defines its own ``setup`` and calls
:func:`prepare` itself.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from overhead_tui.kit.builds import errors_in_file, record_build, split_legacy
from overhead_tui.kit.cbuild import CDEF, MatmulLibrary, Unavailable, build, pointers
from overhead_tui.kit.mojobuild import build as build_mojo

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

LANGUAGES = ("C", "C++", "Mojo")
"""What a declared rung's ``SOURCE`` may be written in (``LANGUAGE``, C by default): C and C++
are built by ``kit.cbuild``, Mojo by ``kit.mojobuild``."""
PAGE = 4096
"""Bytes of the page C is placed in like A (x86-64 and most aarch64 kernels' base page)."""


def prepare(*args: Any, language: str = "C") -> tuple[Any, ...]:
    """A C rung's ``setup``: ``prepare(NAME, SOURCE, FLAGS, LINK_FLAGS, a, b)`` builds (or
    loads) it, records how (``kit.builds``, the summary's ``build``) and returns the kernel's
    arguments: (lib, views of A, B and C, C itself, n).  C (zeros) lies at A's offset within
    a 4 KiB page, so its alignment to cache lines is A's.  A file written before the build
    record passes its ``BUILD_INFO`` dict first: it is filled as well."""
    import numpy as np

    legacy, (name, source, flags, link_flags, a, b) = split_legacy(args)
    if language == "Mojo":  # mojo build, not a C compiler
        declarations = CDEF.format(real="double" if a.dtype.itemsize == 8 else "float")
        ffi, lib, info = build_mojo(name, source, list(flags), str(a.dtype), declarations)
    else:
        ffi, lib, info = build(
            name, source, list(flags), str(a.dtype), list(link_flags), language=language
        )
    record_build(name, info)
    legacy.update(info)
    # C at A's offset within a page: its alignment follows the inputs' (numpy's arrays lie 16
    # bytes past a page; copies of A and B placed on a page boundary take C with them)
    raw = np.zeros(a.nbytes + 2 * PAGE, dtype=np.uint8)
    start = (a.ctypes.data - raw.ctypes.data) % PAGE
    c = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    pa, pb, pc = pointers(ffi, a, b, c)
    return lib, pa, pb, pc, c, a.shape[0]


def matmul(
    lib: MatmulLibrary, pa: object, pb: object, pc: object, c: NDArray[np.generic], n: int
) -> NDArray[np.generic]:
    """A C rung's ``kernel``: one call of the compiled ``matmul``; returns C (numpy)."""
    lib.matmul(pa, pb, pc, n)
    return c


SYSTEM_INCLUDES = (Path("/usr/local/include"), Path("/usr/include"))
"""The folders gcc and clang search after the ``-I`` ones on Linux (``cc -E -v -`` lists
them; Debian installs xsimd's headers in ``/usr/include/xsimd``)."""


SYSTEM_DEPS_PACKAGES = frozenset({"libeigen3-dev", "libxsimd-dev"})
"""The header packages ``scripts/system-deps.sh`` (``make test``) installs: the built-in C++
rungs'; a file of one's own may name any other (its fix is then apt-get alone)."""


def missing_headers(headers: dict[str, str], flags: list[str]) -> None:
    """Raise ``Unavailable`` with the install line when a header a rung declares
    (``HEADERS = {"Eigen/Dense": "libeigen3-dev"}``: header → the Debian package that installs
    it) is in none of its ``-I`` folders nor the compiler's own (:data:`SYSTEM_INCLUDES`),
    so the rung is skipped, not a compile error."""
    folders = [*(Path(f[2:]) for f in flags if f.startswith("-I")), *SYSTEM_INCLUDES]
    for header, package in headers.items():
        if not any((folder / header).is_file() for folder in folders):
            where = ", ".join(map(str, folders)) or "no -I folder"
            by_make = "; make test installs it" if package in SYSTEM_DEPS_PACKAGES else ""
            fix = f"apt-get install {package}{by_make}"
            raise Unavailable(f"{header} is not in {where} (fix: {fix})")


def is_declared(module: ModuleType) -> bool:
    """True when ``module`` is a C rung by its declarations: ``SOURCE`` (str) and ``FLAGS``,
    and no ``kernel`` of its own."""
    declared = isinstance(getattr(module, "SOURCE", None), str) and hasattr(module, "FLAGS")
    return declared and not hasattr(module, "kernel")


def complete(module: ModuleType) -> None:
    """Give a declared C rung (:func:`is_declared`) its ``setup`` (:func:`prepare` with its
    ``NAME``, ``SOURCE``, ``FLAGS`` and ``LINK_FLAGS``, default none, after its
    ``BLAS_THREADS`` limit if it declares one) unless it has its own, and ``kernel``
    (:func:`matmul`); anything else is left as it is."""
    if not is_declared(module):
        return
    source, flags = module.SOURCE, list(module.FLAGS)
    link_flags = list(getattr(module, "LINK_FLAGS", []))
    language = str(getattr(module, "LANGUAGE", "C"))
    headers = dict(getattr(module, "HEADERS", {}))
    blas_threads = getattr(module, "BLAS_THREADS", None)
    limits: list[object] = []  # the threadpoolctl limit, kept for the worker's life

    def setup(a: object, b: object) -> tuple[object, ...]:
        if blas_threads is not None:
            from threadpoolctl import threadpool_limits

            limits.append(threadpool_limits(limits=blas_threads, user_api="blas"))
        missing_headers(headers, flags)
        with errors_in_file(module):
            return prepare(module.NAME, source, flags, link_flags, a, b, language=language)

    setattr(module, "kernel", matmul)  # noqa: B010 (a module's attribute, set at run time)
    if not hasattr(module, "setup"):  # a setup of its own (a CPU check) calls prepare itself
        setattr(module, "setup", setup)  # noqa: B010
