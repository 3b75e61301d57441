"""What JAX rungs ask of the worker (scenario files reach it through ``api``): a CPU backend,
and an XLA compile whose machine code is kept for the compiled model.

JAX is imported only inside the functions (a worker runs under any ``--python`` that has only
numpy); a rung that needs it declares ``REQUIRES = ("jax",)``.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from overhead_tui.kit.cbuild import Unavailable
from overhead_tui.kit.simd import disassemble


def require_cpu_backend() -> None:
    """Raise :class:`Unavailable` with the fix when JAX has no CPU backend here (a
    ``JAX_PLATFORMS`` without ``cpu``: JAX's own error is an ``AssertionError`` with no text)."""
    import jax

    try:
        jax.devices("cpu")
    except Exception as exc:
        platforms = os.environ.get("JAX_PLATFORMS", "")
        raise Unavailable(
            f"JAX has no CPU backend here ({type(exc).__name__} {exc}; JAX_PLATFORMS="
            f"{platforms!r}); fix: unset JAX_PLATFORMS or set it to cpu"
        ) from None


def compile_keeping_code(lowered: Any) -> tuple[Any, list[str], str | None]:
    """``lowered.compile()`` with XLA asked to dump this compile's object files
    (``compiler_options={"xla_dump_to": DIR}``: this compile alone, not ``XLA_FLAGS``) into a
    temporary folder, removed once they are disassembled.

    Returns:
        (the compiled executable, the object files' names, their labelled disassembly or None
        without ``objdump``).
    """
    with tempfile.TemporaryDirectory(prefix="overhead-xla-") as dump:
        compiled = lowered.compile(compiler_options={"xla_dump_to": dump})
        objects = sorted(f for f in os.listdir(dump) if f.endswith(".o"))
        asm = disassemble([os.path.join(dump, f) for f in objects])
    return compiled, objects, asm
