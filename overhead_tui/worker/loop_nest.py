"""How often each loop of a C rung's kernel runs and is entered at the rung's own n, counted
by the compiler: the source built with gcc's arc profiling (``--coverage``), one call of its
``matmul`` at n by a small driver, then ``gcov --json-format --branch-probabilities``.

A loop's condition is a line with two branch arms: the arm taken to run the body once more
(its count: the loop's iterations) and the arm that leaves it (its count: how many times the
loop was entered and left).  The hot loop is the one that iterates most: for ``c_tiled`` at
n = 64, the ``j`` loop runs 64³ = 262,144 times and is entered 64³ / 32 = 8,192 times (once
per ``i, k`` of each tile).  The compiled-rung model prices each entry at the measured cost
of entering a short vectorised loop (``scalar_fma`` probe, ``loop_entry_ns``): the loops
around the hot loop, which one iteration of it does not show.  The counts are exact (arc
counters); the instrumented build is not the timed one, but a loop's trips are the source's,
whatever the vectoriser makes of them.

Only a kernel with the ladder's C signature (``void matmul(const real_t *a, const real_t *b,
real_t *c, int n)``), built by a compiler whose coverage files ``gcov`` reads (gcc's).
Standard library only.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from overhead_tui.summary.measured import LoopNest

MATMUL = re.compile(
    r"void\s+matmul\s*\(\s*const\s+real_t\s*\*\s*(?:restrict\s+)?\w+\s*,\s*const\s+real_t\s*\*"
    r"\s*(?:restrict\s+)?\w+\s*,\s*real_t\s*\*\s*(?:restrict\s+)?\w+\s*,\s*int\s+\w+\s*\)"
)
"""The ladder's C kernel signature (``kit.c_rung.prepare`` builds it)."""
LOOP = re.compile(r"\b(?:for|while|do)\b")
"""A loop of the source's own: gcov counts only the source's lines, so a kernel that calls a
library's (Eigen's product: a 3.3 s instrumented build for nothing, 2026-12-07) is not
built for it."""

DRIVER = r"""
#include <stdlib.h>
void matmul(const real_t *a, const real_t *b, real_t *c, int n);
int main(int argc, char **argv) {
    int n = atoi(argv[1]);
    size_t count = (size_t)n * (size_t)n;
    real_t *a = malloc(count * sizeof(real_t)), *b = malloc(count * sizeof(real_t));
    real_t *c = calloc(count, sizeof(real_t));
    if (!a || !b || !c) return 3;
    for (size_t i = 0; i < count; i++) { a[i] = (real_t)1e-3; b[i] = (real_t)1e-3; }
    matmul(a, b, c, n);
    return c[0] != c[0];
}
"""
"""One call of the kernel at n on small constant inputs (the trips do not depend on them)."""

TIMEOUT_S = 120
"""Seconds the instrumented call may take (arc counters slow a loop a few times at most)."""


def count_loops(
    source: str, flags: list[str], link_flags: list[str], dtype: str, n: int, language: str = "C"
) -> LoopNest | None:
    """The loop nest of ``source``'s ``matmul`` called once at ``n`` (module docstring): each
    loop's (line, iterations, entries), the hot loop first.  None when the kernel has another
    signature, the compiler is not gcc, or the build, run or ``gcov`` fails (never an error:
    the model then leaves the loops around the hot loop unexplained).  Kept in the build
    cache under the build's key and n.  A C++ kernel (``language``) is compiled and linked
    with the C++ compiler, the driver with the C one (its ``matmul`` is ``extern "C"``)."""
    from overhead_tui.kit.cbuild import (
        SOURCE_LANGUAGE,
        Unavailable,
        build_key,
        compiler,
        compiler_version,
        cpu_signature,
        usable_cache_dir,
    )

    if dtype not in ("float64", "float32") or not MATMUL.search(source):
        return None
    if not LOOP.search(source):  # its loops are a library's (Eigen's): none to count here
        return None
    gcov = shutil.which("gcov")
    try:
        cc, driver_cc = compiler(language), compiler()
        folder, _ = usable_cache_dir()
    except Unavailable:
        return None
    if language != "C":
        flags = [*flags, "-x", SOURCE_LANGUAGE[language]]
    if gcov is None:
        return None
    real = "double" if dtype == "float64" else "float"
    key = build_key(source, compiler_version(cc), flags, link_flags, real, cpu_signature())
    cached = folder / f"_overhead_loops_{key}_{n}.json"
    with contextlib.suppress(OSError, ValueError, KeyError):
        return LoopNest(n=n, loops=json.loads(cached.read_text())["loops"])
    found = _counted((cc, driver_cc), gcov, source, flags, link_flags, real, n)
    if found is not None:
        with contextlib.suppress(OSError):
            folder.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps({"loops": found.loops}))
            os.replace(partial, cached)
    return found


def _counted(
    compilers: tuple[str, str],
    gcov: str,
    source: str,
    flags: list[str],
    link_flags: list[str],
    real: str,
    n: int,
) -> LoopNest | None:
    """Build, run and read the instrumented kernel once (:func:`count_loops`): ``compilers``
    are the kernel's (which links) and the driver's."""
    cc, driver_cc = compilers
    with tempfile.TemporaryDirectory(prefix="overhead-loops-") as folder:
        work = Path(folder)
        (work / "kernel.c").write_text(source)
        (work / "driver.c").write_text(DRIVER)
        base = [*cc.split(), *flags, f"-Dreal_t={real}"]
        steps = [
            [*base, "--coverage", "-c", "kernel.c", "-o", "kernel.o"],
            [*driver_cc.split(), "-O2", f"-Dreal_t={real}", "-c", "driver.c", "-o", "driver.o"],
            [*cc.split(), "--coverage", "kernel.o", "driver.o", *link_flags, "-o", "driver"],
            ["./driver", str(n)],
            [gcov, "--json-format", "--branch-probabilities", "kernel.c"],
        ]
        for command in steps:
            try:
                done = subprocess.run(
                    command, cwd=work, capture_output=True, timeout=TIMEOUT_S, check=False
                )
            except (OSError, subprocess.TimeoutExpired):
                return None
            if done.returncode != 0:
                return None
        report = work / "kernel.gcov.json.gz"
        with contextlib.suppress(OSError, ValueError):
            return loops_of(json.loads(gzip.decompress(report.read_bytes())), n)
    return None


def loops_of(report: dict, n: int) -> LoopNest | None:
    """The loops of a ``gcov --json-format`` report of ``kernel.c``: every line with two or
    more branch arms taken, as (line, iterations: its largest arm, entries: its smallest
    arm taken), the hot loop (most iterations) first; None without one."""
    loops: list[tuple[int, int, int]] = []
    for entry in report.get("files", []):
        if not str(entry.get("file", "")).endswith("kernel.c"):
            continue
        for line in entry.get("lines", []):
            arms = [int(b.get("count", 0)) for b in line.get("branches", [])]
            taken = [x for x in arms if x > 0]
            if len(taken) >= 2:
                loops.append((int(line["line_number"]), max(taken), min(taken)))
    if not loops:
        return None
    loops.sort(key=lambda x: -x[1])
    return LoopNest(n=n, loops=[list(x) for x in loops])
