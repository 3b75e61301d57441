"""Unit costs fitted over loops shaped like the rungs: ns per dispatch, float and list load.

The other interpreted probes measure one event at a time against a loop without it.  On some
cores the costs do not add up that way: on a 2-vCPU Xeon (2026-12-02) a dispatch cost 1.31 ns
in the 6-dispatch reference loop and 1.62 in the same statement unrolled to 27 dispatches; a
float cost 2.2 ns between 8 `y = x * z` and 8 `y = x is z` a trip but 4.3 in loops of one or
two floats consumed by the next instruction; python_naive's model then explained 0.81.

This probe times :data:`BODIES`, ten inner loops of the ladder's shape (``for k in range(n)``
over the ladder's 128 × 128 lists of floats: list subscripts, float products and sums, an
accumulator), none of them a rung's own loop, and fits by least squares

    ns per trip = dispatches × d + floats × f + list loads × l

with every count exact (``ctx.count``), the ten timed round-robin (``ProbeContext.time_many``:
a round times each loop once, so a shared host's drift hits every loop of a round alike; the
dispatch probe's reference loop runs in the same rounds: ``reference_dispatch_ns``, the
median of its rounds).  Each loop's time is read in reference dispatches of its own round (a
round the host slows, slows its reference alike) and the fit is over each loop's median of
those ratios, times the median reference: taking each loop's fastest round fitted timings
from different moments, and under load (2-vCPU Zen 3, 2026-12-07) gave a float 5.0 to 12.3 ns
from one run to the next.
``value`` is d; details ``float_ns`` (f),
``load_ns`` (l), ``fit_error`` (the largest |fitted / timed − 1| of the ten) and
``leave_one_out_error`` (the largest error predicting each loop from a fit of the other
nine: how well the three costs carry to a loop they were not fitted on).  Each sample is the
fit of one round, at that round's reference speed.
``analysis.unit_costs`` uses the three costs for
the interpreted rungs when ``fit_error`` is at most ``MIX_TRUSTED``.

What three costs cannot hold, measured on that Xeon: the fit's residuals are ±8 % — short
loops cost more per dispatch (their ``range`` trip is a larger part), independent floats
less than accumulated ones, and ``b[k][j]`` (a new row list each trip) 9 % more than
``a[i][k]``.  A fourth cost per ``range`` trip was tried: it is collinear with the dispatches
(every loop has one trip) and came out between −0.5 and 0.4 ns.
"""

import random
import statistics
from itertools import repeat

import numpy as np

from overhead_tui.api import ProbeMeasurement, baseline_loop

NAME = "loop_mix"
TITLE = "interpreted unit costs fitted over loops of the rungs' shape"
UNIT = "ns/dispatch"
LAYER = "interpreter_dispatch"
REQUIRES = ("numpy",)
ORDER = 128
REPS = 10
"""Inner loops of :data:`ORDER` trips per call (1,280 trips; calls are repeated to fill a
sample)."""
BODIES = {
    "is_1": "y = x is z",
    "is_3": "y = x is z\n            y = x is z\n            y = x is z",
    "multiply_1": "y = x * z",
    "multiply_2": "y = x * z\n            y = x * z",
    "accumulate": "s += x * z",
    "load_2": "y = a[i][k]",
    "load_4": "y = a[i][k]\n            y = b[k][j]",
    "product_4": "y = a[i][k] * b[k][j]",
    "accumulate_a": "s += a[i][k] * z",
    "accumulate_b": "s += x * b[k][j]",
}
"""Loop bodies: each varies the mix of dispatches, floats and list loads."""
LIST_LOADS = frozenset({"BINARY_SUBSCR_LIST_INT"})
REFERENCE_TRIPS = 20_000
"""Trips of the dispatch probe's reference loop timed in each round beside the ten (about the
time of one loop's sample): ``reference_dispatch_ns`` is its speed in the same rounds, which
the model brings the three costs to the dispatch probe's speed with."""
TEMPLATE = """
def loop(reps, a, b, x, z):
    i = 1
    j = 2
    s = 0.0
    y = None
    for _ in repeat(None, reps):
        for k in range({order}):
            {body}
    return s, y
"""


def _loop(body):
    scope = {"repeat": repeat}
    exec(TEMPLATE.format(order=ORDER, body=body), scope)  # our own fixed text
    return scope["loop"]


def _per_trip(ctx, loop, args):
    """Exact [dispatches, floats, list loads] per inner trip: counted once at 2 and once at
    1 outer reps, differenced."""
    two, one = ctx.count(loop, 2, *args), ctx.count(loop, 1, *args)
    loads = sum(two.by_opcode.get(o, 0) - one.by_opcode.get(o, 0) for o in LIST_LOADS)
    return [
        (two.dispatches - one.dispatches) / ORDER,
        (two.floats - one.floats) / ORDER,
        loads / ORDER,
    ]


def fit(counts, times):
    """Least-squares costs (d, f, l) from rows of (dispatches, floats, loads) per trip and ns
    per trip; with the largest relative error of the fit and of leave-one-out."""
    x, y = np.asarray(counts, dtype=float), np.asarray(times, dtype=float)
    costs = np.linalg.lstsq(x, y, rcond=None)[0]
    fit_error = float(np.max(np.abs(x @ costs / y - 1)))
    left_out = []
    for k in range(len(y)):
        keep = np.arange(len(y)) != k
        others = np.linalg.lstsq(x[keep], y[keep], rcond=None)[0]
        left_out.append(abs(float(x[k] @ others) / y[k] - 1))
    return [float(c) for c in costs], fit_error, float(max(left_out))


def measure(ctx):
    rng = random.Random(0)
    a = [[rng.random() for _ in range(ORDER)] for _ in range(ORDER)]
    b = [[rng.random() for _ in range(ORDER)] for _ in range(ORDER)]
    args = (a, b, 1.5, 0.999)
    loops = [_loop(body) for body in BODIES.values()]
    counts = [_per_trip(ctx, loop, args) for loop in loops]
    trips = REPS * ORDER
    reference_dispatches = (
        ctx.count(baseline_loop, 2000, 1.5, 2.5).dispatches
        - ctx.count(baseline_loop, 1000, 1.5, 2.5).dispatches
    ) / 1000

    def reference(reps, a, b, x, z):  # the dispatch probe's loop, in the same rounds
        return baseline_loop(REFERENCE_TRIPS, 1.5, 2.5)

    # round-robin: each round times every loop once, and the reference loop beside them, so
    # all see the same moment's speed
    *timed, reference_times = ctx.time_many([*loops, reference], REPS, *args)
    per_dispatch = [t / (REFERENCE_TRIPS * reference_dispatches) * 1e9 for t in reference_times]
    # each loop's time in reference dispatches of its own round: a round the host slowed
    # slows its reference alike; the median over rounds leaves out a round it slowed unevenly
    relative = [[t / trips * 1e9 / per_dispatch[r] for r, t in enumerate(times)] for times in timed]
    reference_ns = statistics.median(per_dispatch)
    costs, fit_error, left_out = fit(counts, [statistics.median(r) for r in relative])
    dispatch, floats, loads = (c * reference_ns for c in costs)
    samples = [
        fit(counts, [r[i] for r in relative])[0][0] * per_dispatch[i]
        for i in range(len(per_dispatch))
    ]
    details = {
        "reference_dispatch_ns": reference_ns,
        "float_ns": floats,
        "load_ns": loads,
        "fit_error": fit_error,
        "leave_one_out_error": left_out,
        "loops": len(BODIES),
    }
    return ProbeMeasurement(samples, details, dispatch)
