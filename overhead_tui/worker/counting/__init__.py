"""Exact event counts of a kernel call: bytecodes by (specialised) opcode, calls, allocations.

Counting perturbs timing, so it runs only in the worker's separate counting phase, after the
timed samples, at small sizes.
"""
