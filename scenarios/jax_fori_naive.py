"""python_naive's ijk loop written for JAX: three nested ``lax.fori_loop``, jitted.

XLA traces the loops once and compiles them, on the CPU, into one kernel of native code (a
"small call": the three while loops, the dynamic indexing and the multiply-adds): no bytecode
dispatch, no float objects.  What it keeps is its own way of running a loop: the induction
variables, the running sum and the loop's predicate live in XLA's buffers, stored and
reloaded every trip, and each ``a[i, k]`` is a dynamic slice whose indices are clamped into
range.  The hot loop is read from that very machine code: this rung's compile asks XLA to
dump its object files (``xla_dump_to``, a compiler option of this compile alone, into a
temporary folder removed as soon as they are disassembled), ``objdump`` disassembles them.
"""

import os
import time

import jax
import jaxlib
from jax import lax

from overhead_tui.api import compile_keeping_code, record_build, require_cpu_backend

NAME = "jax_fori_naive"
TITLE = "JAX, ijk as three nested lax.fori_loop (jitted)"
RUNG = 8
SETS = ('compilers',)
LAYERS = ("scalar_compute", "memory")
REMOVES = ("interpreter_dispatch", "boxing")
DEFAULT_SIZE = 128
MAX_SIZE = 512
REQUIRES = ("jax",)
ASSEMBLY: list = []
"""The disassembly of the kernel objects XLA made in ``setup`` (empty without objdump)."""


def naive(a, b):
    """C = A·B as python_naive writes it, each loop a ``lax.fori_loop``."""
    n, p = a.shape
    m = b.shape[1]

    def row(i, c):
        def column(j, c):
            zero = jax.numpy.zeros((), a.dtype)
            s = lax.fori_loop(0, p, lambda k, s: s + a[i, k] * b[k, j], zero)
            return c.at[i, j].set(s)

        return lax.fori_loop(0, m, column, c)

    return lax.fori_loop(0, n, row, jax.numpy.zeros((n, m), a.dtype))


def setup(a, b):
    jax.config.update("jax_enable_x64", True)
    require_cpu_backend()
    started = time.perf_counter()
    compiled, objects, asm = compile_keeping_code(jax.jit(naive).lower(a, b))
    ASSEMBLY[:] = [asm] if asm else []
    record_build(
        NAME,
        {
            "compiler": "XLA",
            "compiler_version": f"jax {jax.__version__}, jaxlib {jaxlib.__version__}",
            "command": "jax.jit(naive).lower(a, b).compile(compiler_options={'xla_dump_to': DIR})",
            "module": ", ".join(objects) or "no kernel object dumped",
            "build_s": time.perf_counter() - started,
            "flags": os.environ.get("XLA_FLAGS", "").split(),
        },
    )
    return compiled, jax.device_put(a), jax.device_put(b)


def generated_assembly():
    """The machine code XLA made of the loops, disassembled: what the compiled model reads."""
    if not ASSEMBLY:
        return None
    return ASSEMBLY[0], "objdump of XLA's kernel objects (xla_dump_to)"


def kernel(compiled, a, b):
    return compiled(a, b).block_until_ready()
