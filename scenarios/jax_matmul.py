"""``jax.jit(jnp.matmul)`` on the CPU: XLA compiles the product once and runs it through
its own CPU dot kernel, not numpy's BLAS.

Which kernel that is depends on the jaxlib: the optimised HLO names it (a ``__ynn_fusion``
custom fusion is YNNPACK, ``__onednn`` oneDNN, a plain ``dot`` XLA's Eigen contraction), and
``setup`` records it as the build's module, with the compile seconds.  The inputs are put on
the device once (not timed); a call is dispatch through JAX's C++ fast path, the kernel, and
``block_until_ready``.  XLA decides how many threads the dot uses (its intra-op pool has one
per CPU): the breakdown prices it on the cores its worker's threads measurably got.
float64 needs ``jax_enable_x64``, set before any array is made.
"""

import os
import time

import jax
import jax.numpy as jnp
import jaxlib

from overhead_tui.api import record_build, require_cpu_backend

NAME = "jax_matmul"
TITLE = "JAX jit(jnp.matmul) on the CPU (XLA's dot)"
RUNG = 20
SETS = ('libraries', 'compilers')
LAYERS = ("library_layers", "dense_kernel", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 16384
REQUIRES = ("jax",)

KERNELS = {
    "__ynn_fusion": "YNNPACK",
    "__onednn": "oneDNN",
    "__xnn_fusion": "XNNPACK",
}
"""A substring of the optimised HLO -> the kernel library XLA calls (else its Eigen dot)."""


def xla_kernel(hlo: str) -> str:
    """The library XLA runs the dot in, read off its optimised HLO text."""
    for marker, library in KERNELS.items():
        if marker in hlo:
            return f"{library} ({marker})"
    return "XLA's Eigen dot (no custom fusion)" if " dot(" in hlo else "unknown"


def setup(a, b):
    jax.config.update("jax_enable_x64", True)
    require_cpu_backend()
    started = time.perf_counter()
    lowered = jax.jit(jnp.matmul).lower(a, b)
    compiled = lowered.compile()
    record_build(
        NAME,
        {
            "compiler": "XLA",
            "compiler_version": f"jax {jax.__version__}, jaxlib {jaxlib.__version__}",
            "command": "jax.jit(jnp.matmul).lower(a, b).compile()",
            "module": xla_kernel(compiled.as_text()),
            "build_s": time.perf_counter() - started,
            "flags": os.environ.get("XLA_FLAGS", "").split(),
        },
    )
    return compiled, jax.device_put(a), jax.device_put(b)


def kernel(compiled, a, b):
    return compiled(a, b).block_until_ready()
