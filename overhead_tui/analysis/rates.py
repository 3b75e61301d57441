"""The measured rates the model prices compiled and library work at, read from the probes:
FP instructions per ns (the SIMD probe's, and each vector width's FMAs), L1 accesses per ns
by width, the dense kernels' and the lower-precision instruction families' GFLOP/s, and
numpy's operations by kind and size.  Each reader returns an empty table for probes from
before its figures.  ``analysis.unit_costs`` holds them in :class:`~overhead_tui.analysis
.unit_costs.UnitCosts` beside the interpreter's unit costs.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, replace

from overhead_tui.analysis import uncertainty as unc
from overhead_tui.summary.probes import Probes, probe_details, probe_value
from overhead_tui.summary.vocabulary import NUMPY_SWEPT_KINDS, PRECISION_FAMILIES


def fp_issue_rates(probes: Probes) -> dict[str, float]:
    """{fp_issue_one, fp_issue_all}: FP instructions per ns from the ``simd_fma`` probe (its
    GFLOP/s over the flops each of its instructions does); empty without the probe's lanes."""
    probe = probes.get("simd_fma")
    details = probe_details(probes, "simd_fma")
    lanes = details.get("lanes")
    if not isinstance(lanes, int | float) or lanes <= 0:
        return {}
    per_instruction = lanes * (1 if details.get("isa") == "sse" else 2)
    rates = {}
    one, every = details.get("one_core_gflops"), probe.value if probe is not None else None
    if isinstance(one, int | float) and one > 0:
        rates["fp_issue_one"] = one / per_instruction
    if isinstance(every, int | float) and every > 0:
        rates["fp_issue_all"] = every / per_instruction
    return rates


def l1_rates(probes: Probes) -> dict[str, dict[int, float]]:
    """{"loads" | "stores" | "mixed": {width bits: per ns}}: the L1 accesses one core sustains
    at each width (``scalar_fma`` details ``l1_KIND_per_ns_W``); a kind without any: absent."""
    details = probe_details(probes, "scalar_fma")
    rates: dict[str, dict[int, float]] = {}
    for key, v in details.items():
        kind, _, width = key.removeprefix("l1_").partition("_per_ns_")
        if key.startswith("l1_") and width.isdigit() and isinstance(v, int | float) and v > 0:
            rates.setdefault(kind, {})[int(width)] = float(v)
    return rates


def fma_rates(probes: Probes) -> dict[int, float]:
    """{width bits: FMA instructions per ns} one core retires at each vector width
    (``scalar_fma`` details ``fma_per_ns_W``); empty from probes before them."""
    details = probe_details(probes, "scalar_fma")
    rates = {}
    for key, v in details.items():
        width = key.removeprefix("fma_per_ns_")
        if (
            key.startswith("fma_per_ns_")
            and width.isdigit()
            and isinstance(v, int | float)
            and v > 0
        ):
            rates[int(width)] = float(v)
    return rates


def shuffle_rates(probes: Probes) -> dict[int, tuple[float, float]]:
    """{width bits: (shuffles per ns, how far they share the FMA ports)} one core shows
    (``scalar_fma`` details ``shuffle_per_ns_W``, ``fma_shuffle_per_ns_W`` beside
    ``fma_per_ns_W``; ``kit.chains.shuffle_throughput``); a width without all three: absent.

    The sharing is read from the mixed loop (12 FMAs, 8 shuffles): alone they take
    ``t_f = 12 / FMA rate`` and ``t_s = 8 / shuffle rate``; on separate ports together
    ``max(t_f, t_s)``, on the same ports ``t_f + t_s``.  The share is
    ``(t_mix − max) / min``, within [0, 1]: 1 where they share every port (Intel's 512-bit
    FMA on port 5), 0 where they share none."""
    details = probe_details(probes, "scalar_fma")
    fmas = fma_rates(probes)
    found: dict[int, tuple[float, float]] = {}
    for width, fma in fmas.items():
        alone, mixed = (
            details.get(f"shuffle_per_ns_{width}"),
            details.get(f"fma_shuffle_per_ns_{width}"),
        )
        if not all(isinstance(x, int | float) and x > 0 for x in (alone, mixed)):
            continue
        assert isinstance(alone, int | float) and isinstance(mixed, int | float)
        t_f, t_s, t_mix = 12 / fma, 8 / alone, 20 / mixed
        share = (t_mix - max(t_f, t_s)) / min(t_f, t_s)
        found[width] = (float(alone), min(1.0, max(0.0, share)))
    return found


def dense_rates(probes: Probes) -> dict[str, tuple[float | None, float | None]]:
    """:attr:`UnitCosts.dense_rates` from the probes (a dtype without either figure: absent)."""
    rates: dict[str, tuple[float | None, float | None]] = {
        "float64": (
            probe_value(probes, "dense_peak", "one_thread_gflops"),
            probe_value(probes, "dense_peak"),
        ),
        "float32": (
            probe_value(probes, "dense_peak", "float32_one_thread_gflops"),
            probe_value(probes, "dense_peak", "float32_gflops"),
        ),
    }
    for dtype, families in PRECISION_FAMILIES.items():
        one = [x for f in families if (x := probe_value(probes, "precision_peak", f"{f}_one_core"))]
        every = [
            x for f in families if (x := probe_value(probes, "precision_peak", f"{f}_all_cores"))
        ]
        rates[dtype] = (max(one, default=None), max(every, default=None))
    return {k: v for k, v in rates.items() if v != (None, None)}


def family_rates(probes: Probes) -> dict[str, tuple[float | None, float | None]]:
    """{instruction family: (one core, all cores) GFLOP/s (GOP/s for int8)} of the
    ``precision_peak`` probe: the rate a hot loop of that family's instructions is priced at."""
    rates = {
        family: (
            probe_value(probes, "precision_peak", f"{family}_one_core"),
            probe_value(probes, "precision_peak", f"{family}_all_cores"),
        )
        for families in PRECISION_FAMILIES.values()
        for family in families
    }
    return {k: v for k, v in rates.items() if v != (None, None)}


@dataclass(frozen=True)
class NumpyRate:
    """One kind's measured costs: a fixed cost per call and a time per element by size."""

    call_ns: float
    """Fixed cost of one call (ns)."""
    call_interval: unc.Interval
    elements: tuple[float, ...] = ()
    """The sweep's sizes (float64 elements, ascending)."""
    ns_per_element: tuple[float, ...] = ()
    """Time per element beyond the fixed cost at each size (ns)."""
    low: tuple[float, ...] = ()
    """At each size, the lowest time per element of the probe's processes (ns); empty: none
    recorded (then :attr:`ns_per_element` is both bounds)."""
    high: tuple[float, ...] = ()
    """At each size, the highest (ns)."""

    def bounds(self) -> tuple[NumpyRate, NumpyRate]:
        """This rate at its processes' lowest and highest times per element."""
        low = self.low if len(self.low) == len(self.elements) else self.ns_per_element
        high = self.high if len(self.high) == len(self.elements) else self.ns_per_element
        return replace(self, ns_per_element=low), replace(self, ns_per_element=high)

    @property
    def in_cache(self) -> float:
        """The lowest time per element of the sweep: the inner loop, data in cache (ns)."""
        return min(self.ns_per_element, default=0.0)

    def at(self, elements: float) -> float:
        """Time per element at ``elements`` per call (ns): log-log interpolation between the
        two nearest sizes of the sweep, the end values beyond it."""
        sizes, rates = self.elements, self.ns_per_element
        if not sizes:
            return 0.0
        if elements <= sizes[0]:
            return rates[0]
        if elements >= sizes[-1]:
            return rates[-1]
        i = bisect.bisect_right(sizes, elements)
        x0, x1 = math.log(sizes[i - 1]), math.log(sizes[i])
        y0, y1 = (math.log(max(r, 1e-6)) for r in (rates[i - 1], rates[i]))
        return math.exp(y0 + (y1 - y0) * (math.log(elements) - x0) / (x1 - x0))


def numpy_rates(probes: Probes) -> dict[str, NumpyRate]:
    """{kind: rate} from the ``numpy_call`` probe; kinds it did not measure are absent
    (probes from before the sweep: none)."""
    probe = probes.get("numpy_call")
    if probe is None:
        return {}
    details = probe_details(probes, "numpy_call")
    stored = probe.detail_intervals or {}
    rates: dict[str, NumpyRate] = {}

    def fixed(key: str) -> tuple[float, unc.Interval] | None:
        value = details.get(key)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None
        low, high = stored.get(key) or (value, value)
        return float(value), (min(low, value), max(high, value))

    for kind in NUMPY_SWEPT_KINDS:
        call = fixed(f"{kind}_call_ns")
        sizes, per_element = details.get(f"{kind}_elements"), details.get(f"{kind}_ns_per_element")
        if call is None or not isinstance(sizes, list) or not isinstance(per_element, list):
            continue
        spread = stored.get(f"{kind}_ns_per_element") or []
        low, high = spread[: len(sizes)], spread[len(sizes) :]
        rates[kind] = NumpyRate(
            call[0], call[1], tuple(sizes), tuple(per_element), tuple(low), tuple(high)
        )
    fixed_kinds = (
        ("view", "view_ns"),
        ("scalar_operand", "scalar_operand_ns"),
        ("scalar_store", "scalar_store_ns"),
        ("inner_loops", "inner_loop_ns"),
    )
    for kind, key in fixed_kinds:
        if (found := fixed(key)) is not None:
            rates[kind] = NumpyRate(*found)
    load, tuple_ns = fixed("scalar_load_ns"), fixed("index_tuple_ns")
    if load is not None and tuple_ns is not None:
        rates["scalar_index"] = NumpyRate(
            load[0] + tuple_ns[0], (load[1][0] + tuple_ns[1][0], load[1][1] + tuple_ns[1][1])
        )
    return rates
