"""Choose scenarios by name (``--scenario``) and by named set (``--set``).

A scenario file declares the sets it belongs to (``SETS``, read by ``plugins.scenarios``);
every scenario is in :data:`ALL_SET`, and a run that names neither a scenario nor a set runs
:data:`DEFAULT_SET`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from overhead_tui.errors import UsageError
from overhead_tui.plugins.scenarios import DEFAULT_SET, ScenarioSpec

ALL_SET = "all"
"""The named set every scenario belongs to without declaring it."""
SETS: dict[str, str] = {
    DEFAULT_SET: "the span: one rung per layer removed, pure Python to the matrix engine",
    ALL_SET: "every scenario",
    "python": "pure Python written other ways, and numpy element by element",
    "compilers": "Python compiled or jitted other ways (Cython, mypyc, Pythran, Nuitka, numba, "
    "JAX), and Mojo",
    "libraries": "numpy, BLAS and frameworks called other ways (per row, einsum, SciPy, JAX, "
    "PyTorch)",
    "c": "C written other ways (unoptimised, tiled, packed, threaded, wider vectors)",
    "cpp": "C++ as C++ programmers write it (containers, Eigen, xsimd)",
}
"""The named sets of the built-in scenarios (``--set NAME``), with what each holds; each
themed set holds ``python_naive`` and the dense kernel too (the ends of "× Python" and
"× dense").  A scenario file may declare a set of its own as well."""


def select(
    specs: list[ScenarioSpec], names: list[str], sets: Iterable[str] = ()
) -> list[ScenarioSpec]:
    """Return the specs called ``names`` and those in the named ``sets`` (:data:`SETS`;
    :data:`ALL_SET`: every spec), in rung order; with neither, the :data:`DEFAULT_SET`.

    Raises:
        UsageError: a name or set is not known (the message lists close matches), or more
            than one chosen scenario declares DENSE_KERNEL.
    """
    known = {s.name: s for s in specs}
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=3)
            hint = f"did you mean {', '.join(close)}?" if close else "see `overhead-tui list`"
            raise UsageError(f"unknown scenario {name!r}; {hint}")
    sets = list(sets) or ([] if names else [DEFAULT_SET])
    members = {ALL_SET, *(x for s in specs for x in s.sets)}
    for named in sets:
        if named not in members:
            lower = {m.lower(): m for m in members}
            close = [lower[named.lower()]] if named.lower() in lower else []
            close = close or difflib.get_close_matches(named, members, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise UsageError(
                f"unknown set {named!r}; fix: {hint}choose one of {', '.join(sorted(members))} "
                "(`overhead-tui list` shows each scenario's sets)"
            )
    wanted = set(names)
    chosen = [s for s in specs if s.name in wanted or ALL_SET in sets or set(s.sets) & set(sets)]
    dense = [s.name for s in chosen if s.dense_kernel]
    if len(dense) > 1:
        raise UsageError(
            f"{', '.join(dense)} all declare DENSE_KERNEL = True; fix: keep it on one of them"
        )
    return chosen
