"""python_naive's ijk loop written for JAX: three nested ``lax.fori_loop``, jitted.

XLA traces the loops once and compiles them, on the CPU, into one kernel of native code (a
"small call": the three while loops, the dynamic indexing and the multiply-adds): no bytecode
dispatch, no float objects.  What it keeps is its own way of running a loop: the induction
variables, the running sum and the loop's predicate live in XLA's buffers, stored and
reloaded every trip, and each ``a[i, k]`` is a dynamic slice whose indices are clamped into
range.  The hot loop is read from that very machine code: XLA writes its object files where
``--xla_dump_to`` points (set here before JAX starts), ``objdump`` disassembles them.
"""

import atexit
import os
import shutil
import tempfile
import time

DUMP = tempfile.mkdtemp(prefix="overhead-xla-")
atexit.register(shutil.rmtree, DUMP, True)
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} --xla_dump_to={DUMP}".strip()

import jax  # noqa: E402  # after XLA_FLAGS: XLA reads them when JAX starts its CPU client
import jaxlib  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

from overhead_tui.api import disassemble  # noqa: E402

NAME = "jax_fori_naive"
TITLE = "JAX, ijk as three nested lax.fori_loop (jitted)"
RUNG = 8
LAYERS = ("scalar_compute", "memory")
REMOVES = ("interpreter_dispatch", "boxing")
DEFAULT_SIZE = 128
MAX_SIZE = 512
DTYPES = ("float64", "float32")
REQUIRES = ("jax",)

BUILD_INFO: dict = {}


def naive(a, b):
    """C = A·B as python_naive writes it, each loop a ``lax.fori_loop``."""
    n, p = a.shape
    m = b.shape[1]

    def row(i, c):
        def column(j, c):
            s = lax.fori_loop(
                0, p, lambda k, s: s + a[i, k] * b[k, j], jax.numpy.zeros((), a.dtype)
            )
            return c.at[i, j].set(s)

        return lax.fori_loop(0, m, column, c)

    return lax.fori_loop(0, n, row, jax.numpy.zeros((n, m), a.dtype))


def setup(a, b):
    jax.config.update("jax_enable_x64", True)
    started = time.perf_counter()
    compiled = jax.jit(naive).lower(a, b).compile()
    BUILD_INFO.update(
        compiler="XLA",
        compiler_version=f"jax {jax.__version__}, jaxlib {jaxlib.__version__}",
        command="jax.jit(naive).lower(a, b).compile()",
        module=", ".join(sorted(_kernel_objects())) or "no kernel object dumped",
        build_s=time.perf_counter() - started,
        flags=os.environ["XLA_FLAGS"].split(),
    )
    return compiled, jax.device_put(a), jax.device_put(b)


def _kernel_objects():
    """The object files XLA dumped for this rung's module (its kernels' machine code)."""
    return [f for f in os.listdir(DUMP) if "jit_naive" in f and f.endswith(".o")]


def generated_assembly():
    """The machine code XLA made of the loops, disassembled: what the compiled model reads."""
    objects = [os.path.join(DUMP, f) for f in sorted(_kernel_objects())]
    asm = disassemble(objects)
    return None if asm is None else (asm, "objdump of XLA's kernel objects (--xla_dump_to)")


def kernel(compiled, a, b):
    return compiled(a, b).block_until_ready()


def to_numpy(c):
    return np.asarray(c)
