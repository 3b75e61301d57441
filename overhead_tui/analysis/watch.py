"""What changed between two measurements of one scenario file (``overhead-tui watch``): the
new time against the last, by the rank test ``compare`` uses; the change of each layer of its
breakdown; its place on a saved ladder; the last versions as a sparkline.  Textual-free."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from overhead_tui.analysis.compare import rank_test, smallest_p
from overhead_tui.summary.records import RunSummary, ScenarioResult

ALPHA = 0.01
"""The rank test's level for "faster" or "slower" (two-sided Mann-Whitney U)."""
SAME_WITHIN = 0.10
"""A layer whose ns per FMA moved less than this share of its old value is "unchanged": the
interpreted layers' unit costs follow the machine's speed of the moment, which moves 5–10 %
between two runs on a shared machine."""
NEGLIGIBLE = 0.01
"""A layer below this share of the last version's modelled time was about nothing: its change
is said in ns per FMA, not as a percentage of about nothing (+250,401,794 %)."""
SPARKS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class Version:
    """One measurement of a watched file: when, how it ended, its samples (s per call) and
    its breakdown's ns per multiply-add by layer (empty without probes)."""

    when: str
    status: str
    error: str | None = None
    samples_s: list[float] = field(default_factory=list)
    gflops: float | None = None
    layers_ns: dict[str, float] = field(default_factory=dict)
    n: int | None = None
    """The matrix order it ran at (None: not run)."""

    @property
    def ok(self) -> bool:
        """True when it was measured (validated and timed)."""
        return self.status == "ok" and bool(self.samples_s)

    @property
    def median_s(self) -> float | None:
        """The median time per call (s)."""
        return statistics.median(self.samples_s) if self.samples_s else None

    def to_json(self) -> dict[str, object]:
        """The version as JSON: the history file's line and ``--json``'s list item (times in
        s, layers in ns per multiply-add)."""
        return {
            "when": self.when,
            "status": self.status,
            "error": self.error,
            "n": self.n,
            "median_s": self.median_s,
            "gflops": self.gflops,
            "samples_s": self.samples_s,
            "layers_ns_per_fma": self.layers_ns,
        }


def version_of(result: ScenarioResult, when: str) -> Version:
    """The :class:`Version` of a finished result (any status)."""
    layers: dict[str, float] = {}
    b = result.breakdown
    if b is not None and b.measured_ns_per_fma:
        for row in b.rows:
            if row.ns_per_fma is not None and row.layer != "other":
                layers[row.layer] = layers.get(row.layer, 0.0) + row.ns_per_fma
    return Version(
        when,
        result.status,
        result.error,
        list(result.samples_s) if result.has_speed else [],
        result.gflops if result.has_speed else None,
        layers,
        result.n,
    )


def change(before: Version, after: Version) -> str:
    """ "faster, p < 0.01", "slower, p = 0.004" or "no detectable change (p = 0.4)" by the rank
    test of the two versions' samples; "" when either has too few samples."""
    tested = rank_test(before.samples_s, after.samples_s)
    if tested is None or before.median_s is None or after.median_s is None:
        return ""
    sizes = (len(before.samples_s), len(after.samples_s))
    if smallest_p(*sizes) >= ALPHA:
        return (
            f"too few samples to tell ({sizes[0]} and {sizes[1]}: the rank test cannot reach "
            f"p < {ALPHA:g}; --repeats 5 or more)"
        )
    p = tested[1]
    if p >= ALPHA:
        return f"no detectable change (p = {p:.2g})"
    faster = after.median_s < before.median_s
    factor = before.median_s / after.median_s if faster else after.median_s / before.median_s
    said = (
        f"faster ({factor:.3g}× the last's speed)"
        if faster
        else (f"slower ({factor:.3g}× the last's time)")
    )
    return f"{said}, p {'< 0.001' if p < 0.001 else f'= {p:.2g}'}"


def layer_changes(before: Version, after: Version) -> list[str]:
    """Each layer's change of ns per FMA, largest first: "interpreter_dispatch −41 %",
    "boxing unchanged", "memory new"; empty without breakdowns on both."""
    if not before.layers_ns or not after.layers_ns:
        return []
    found = []
    floor = NEGLIGIBLE * sum(v for v in before.layers_ns.values() if v > 0)
    for layer in sorted(set(before.layers_ns) | set(after.layers_ns)):
        old, new = before.layers_ns.get(layer, 0.0), after.layers_ns.get(layer, 0.0)
        if old <= floor and new <= floor:
            continue
        if old <= 0:
            found.append((new, f"{layer} new"))
        elif old <= floor:
            found.append((new, f"{layer} new ({old:.2g} → {new:.3g} ns per FMA)"))
        elif abs(new - old) < SAME_WITHIN * old:
            found.append((0.0, f"{layer} unchanged"))
        else:
            found.append((abs(new - old), f"{layer} {(new - old) / old:+.0%}".replace("-", "−")))
    return [text for _, text in sorted(found, key=lambda x: -x[0])]


def ladder_place(gflops: float, ladder: RunSummary | None, own: str) -> str:
    """Where ``gflops`` falls on a saved ladder: "between A (x GFLOP/s) and B (y)", and
    "× dense" against its dense kernel; "" without a ladder."""
    if ladder is None:
        return ""
    rungs = sorted(
        (r.gflops, r.name) for r in ladder.scenarios if r.has_speed and r.gflops and r.name != own
    )
    if not rungs:
        return ""
    below = [x for x in rungs if x[0] <= gflops]
    above = [x for x in rungs if x[0] > gflops]
    if below and above:
        place = f"between {below[-1][1]} ({below[-1][0]:.3g}) and {above[0][1]} ({above[0][0]:.3g})"
    elif above:
        place = f"below {above[0][1]} ({above[0][0]:.3g}), the slowest rung"
    else:
        place = f"above {below[-1][1]} ({below[-1][0]:.3g}), the fastest rung"
    dense = ladder.dense
    if dense is not None and dense.gflops and gflops:
        place += f"; {dense.gflops / gflops:,.0f}× from the dense kernel"
    return place


def sparkline(values: list[float]) -> str:
    """``values`` as block characters, lowest ▁ to highest █ (one per value)."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high <= low:
        return SPARKS[0] * len(values)
    return "".join(SPARKS[round((v - low) / (high - low) * (len(SPARKS) - 1))] for v in values)
