"""ns per instruction dispatch: a tight loop of cheap instructions that allocates nothing.

`y = x is z` per trip (range-free iteration, local loads and stores, a pointer comparison):
time per trip divided by the exactly counted dispatches per trip is the cost of fetching,
decoding and executing one cheap instruction in the eval loop.
"""

from overhead_tui.api import ProbeMeasurement, dispatch_samples

NAME = "dispatch"
TITLE = "bytecode dispatch"
UNIT = "ns/dispatch"
LAYER = "interpreter_dispatch"


def measure(ctx):
    samples, per_trip = dispatch_samples(ctx)
    return ProbeMeasurement(samples, {"dispatches_per_trip": per_trip})
