"""ns per bytecode instruction: a loop of local loads and stores that allocates nothing.

Time per call divided by the exact number of instructions executed (counted with the
interpreter's opcode tracing), so it is the average cost of fetching, decoding and dispatching
one cheap instruction in the eval loop.
"""

from overhead_tui.engine.probing import dispatch_samples

NAME = "dispatch"
TITLE = "bytecode dispatch"
UNIT = "ns/dispatch"
LAYER = "interpreter_dispatch"


def measure(ctx):
    samples, bytecodes = dispatch_samples(ctx)
    return {"samples": samples, "details": {"dispatches_per_trip": bytecodes}}
