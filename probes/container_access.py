"""ns per list subscript load (`y = lst[k]`) and store (`lst[k] = y`) beyond dispatch.

Each is timed against the same loop with the subscript replaced by a pointer comparison
(`y = x is z`), correcting for any difference in exactly counted dispatches: the difference is
what the subscript itself costs (bounds check, item load or store, reference counting).
"""

from itertools import repeat

from overhead_tui.engine.probing import paired_samples

NAME = "container_access"
TITLE = "list subscripts"
UNIT = "ns/load"
LAYER = "container_access"
TRIPS = 200_000


def _load(n, lst):
    k = 1
    for _ in repeat(None, n):
        y = lst[k]
    return y


def _store(n, lst):
    k = 1
    y = 0.5
    for _ in repeat(None, n):
        lst[k] = y
    return y


def measure(ctx):
    lst = [0.5] * 8
    loads, details = paired_samples(ctx, _load, (lst,), TRIPS)
    stores, _ = paired_samples(ctx, _store, (lst,), TRIPS)
    stores.sort()
    return {"samples": loads, "details": {"store_ns": stores[len(stores) // 2], **details}}
