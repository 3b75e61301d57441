"""ns to create and free one float object: what a float multiply costs beyond dispatch.

`y = x * z` on floats specialises to BINARY_OP_MULTIPLY_FLOAT, which creates one float each
(eight per loop trip, checked with the derived allocation count).  It is timed against the same
loop with `y = x is z` (same instructions except a pointer comparison): the difference is the
boxing cost,
allocation from the float free list, initialisation, the multiply itself (under a
nanosecond), reference counting and deallocation of the previous result.

``c_api_float_ns`` is the same pair of loops compiled by Cython untyped (no declarations, as
``cython_untyped`` compiles ``python_naive``): there each ``x * z`` is a call to
``PyNumber_Multiply``, which looks up the operands' number slots before it reaches float's
multiply and creates the float.  Its excess over ``value`` is what the generic number protocol
costs beyond the interpreter's inlined float op; absent (the reason in ``c_api_missing``)
without Cython or a C compiler.

``c_api_subscript_ns``, from the same Cython module: a list subscript whose index is an object
(`y = x[i]`, nothing declared), which Cython compiles to the mapping protocol (list's
``mp_subscript``: the index checked and converted with ``PyNumber_AsSsize_t``, the item's
reference taken) where the interpreter's BINARY_SUBSCR_LIST_INT reads the item inline.  It is
how Nuitka reads every subscript of unchanged Python (its ``LOOKUP_SUBSCRIPT`` calls the same
slot: ``nuitka/build/include/nuitka/helper/subscripts.h``); timed against the compiled ``is``
loop, eight a trip.

The details give ``int_ns``, the same for an int: `y = x + z` on ints above the small-int cache
(256) specialises to BINARY_OP_ADD_INT and allocates its result, as index arithmetic such as
`i * n + k` does in a loop over a flat array.
"""

import inspect
from itertools import repeat

from overhead_tui.api import (
    BuildError,
    ProbeMeasurement,
    Unavailable,
    compile_python,
    paired_samples,
)

NAME = "boxing"
TITLE = "float boxing"
UNIT = "ns/float"
LAYER = "boxing"
TRIPS = 50_000
PROCESSES = 3
"""A few-ns difference of two loops: worker processes differ by up to ±20 % on a shared VM
(`scripts/probe_stability.py`, 5 measurements: 9–11 % run to run with 7 processes, 15–17 %
with 3).  It had 7; it has the default 3 since the interpreted rungs take their float cost
from ``loop_mix`` where its fit holds: this probe then prices int results and is the
fallback, and a cold start is 4 processes (about 5 s) shorter."""


def _floats(n, x, z):
    # eight multiplies per trip: the difference to the baseline is 8 floats' worth
    for _ in repeat(None, n):
        y = x * z
        y = x * z
        y = x * z
        y = x * z
        y = x * z
        y = x * z
        y = x * z
        y = x * z
    return y


def _ints(n, x, z):
    # eight int additions per trip, each result above 256: eight ints allocated
    for _ in repeat(None, n):
        y = x + z
        y = x + z
        y = x + z
        y = x + z
        y = x + z
        y = x + z
        y = x + z
        y = x + z
    return y


def _subscripts(n, x, i):
    # eight list subscripts per trip, the index an object: the mapping protocol once compiled
    for _ in repeat(None, n):
        y = x[i]
        y = x[i]
        y = x[i]
        y = x[i]
        y = x[i]
        y = x[i]
        y = x[i]
        y = x[i]
    return y


def _identities(n, x, z):
    for _ in repeat(None, n):
        y = x is z
        y = x is z
        y = x is z
        y = x is z
        y = x is z
        y = x is z
        y = x is z
        y = x is z
    return y


C_API_SOURCE = "from itertools import repeat\n\n\n" + "\n\n".join(
    inspect.getsource(f) for f in (_floats, _subscripts, _identities)
)
"""``_floats``, ``_subscripts`` and ``_identities`` themselves, as Cython compiles them untyped (a
``.pyx``)."""
SUBSCRIPTED = [float(k) for k in range(64)]
"""The list ``_subscripts`` reads (its item 3, an index object made once)."""


def prepare():
    """Build the Cython module ``measure`` times (a run builds it before anything is timed)."""
    compile_python(NAME, C_API_SOURCE, "cython")


def _c_api(ctx):
    """ns per float multiply through the generic number protocol (the float it creates
    included) and per list subscript through the mapping protocol, Cython-compiled, each paired
    against the compiled ``is`` loop; the reason instead where the module cannot be built."""
    try:
        compiled = compile_python(NAME, C_API_SOURCE, "cython")
    except (Unavailable, BuildError) as exc:  # the probe's other figures stand without it
        return {"c_api_missing": str(exc).splitlines()[0]}
    floats = paired_samples(
        ctx, compiled._floats, (1.5, 2.5), TRIPS, 8, baseline=compiled._identities
    )
    subscripts = paired_samples(
        ctx, compiled._subscripts, (SUBSCRIPTED, 3), TRIPS, 8, baseline=compiled._identities
    )
    return {"c_api_float_ns": floats.median, "c_api_subscript_ns": subscripts.median}


def measure(ctx):
    floats_per_trip = ctx.count(_floats, 1000, 1.5, 2.5).floats / 1000
    floats = paired_samples(ctx, _floats, (1.5, 2.5), TRIPS, floats_per_trip, baseline=_identities)
    ints = paired_samples(ctx, _ints, (1000, 2000), TRIPS, 8, baseline=_identities)
    details = {
        "floats_per_trip": floats_per_trip,
        "int_ns": ints.median,
        **floats.details,
        **_c_api(ctx),
    }
    return ProbeMeasurement(floats.samples, details, floats.estimate)
