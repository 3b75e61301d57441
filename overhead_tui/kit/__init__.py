"""The authors' kit: what ``overhead_tui.api`` hands to scenario and probe files, and the
measuring primitives under it.  It runs inside a worker process, so it follows the worker's
import rule: the standard library, numpy (lazily, where a rung needs it), cffi and the other
rung libraries only inside the function that needs them, and of the tool only
``overhead_tui.kit``, ``overhead_tui.summary`` and ``overhead_tui.errors`` —
``tests/unit/test_architecture.py`` enforces it.  The worker (``overhead_tui.worker``)
builds on it; it never imports the worker.

``cbuild`` builds C rungs (cffi) and reads their assembly; ``pybuild`` builds the Cython,
mypyc and Pythran rungs; ``low_precision`` the float16/bfloat16/int8 C rungs' ABI;
``packed_gemm`` the BLIS-style kernel; ``chains`` the dependent instruction chains (clock,
latencies, issue rate, L1 rates); ``simd`` the ISAs, accumulators and the assembly reader;
``xla`` the machine code XLA made; ``probing`` the context a probe's ``measure`` gets;
``timing`` timing calls and calibrating their loops; ``folders`` where builds and caches go.
"""
