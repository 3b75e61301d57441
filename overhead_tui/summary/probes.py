"""The probes' results: ``summary.probes`` {name: :class:`ProbeResult`} and the per-machine
probe cache (``engine.probe_runs``) hold the same records, written by the summary codec.

A probe's value is in its ``unit`` (ns for the interpreter costs, GFLOP/s for the peaks,
GB/s for the bandwidth, GHz for the clock); ``details`` are what its file reported besides
(``probes/README.md``).  Readers go through :func:`probe_value`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from overhead_tui.summary.codec import ABSENT, from_json

ProbeDetail = bool | int | float | str | list[float] | None
"""One of a probe's ``details``: a number (ns, GFLOP/s, counts), a flag or a text (an ISA, a
warning)."""


@dataclass
class ProbeResult:
    """One probe's unit cost: the median of its per-process values, their spread and range.

    ``interval``, ``detail_intervals`` and ``other_cpu_fraction`` are :data:`ABSENT` in files
    written before they existed (and stay out of them when written back).
    """

    name: str = ""
    title: str = ""
    unit: str = ""
    layer: str = ""
    value: float | None = None
    spread: float | None = None
    """(max − min) / median of the per-process values: the run-to-run spread (0.05 = 5 %)."""
    samples: list[float] = field(default_factory=list)
    """The value measured in each worker process."""
    details: dict[str, ProbeDetail] = field(default_factory=dict)
    """Each numeric detail's median over the processes (each position's, for a list of them),
    the others the median process's, plus ``within_process_spread``."""
    error: str | None = None
    interval: list[float] | None = ABSENT
    """[min, max] of the per-process values: a distribution-free interval for the median
    process value (coverage 1 − 2·0.5ⁿ for n processes, ``analysis.uncertainty``)."""
    detail_intervals: dict[str, list[float]] = ABSENT
    """[min, max] over the processes of each numeric detail (e.g. ``store_ns``); for a detail
    that is a list of L numbers (``outer_ns_per_element``), its L minima then its L maxima,
    position by position."""
    other_cpu_fraction: float | None = ABSENT
    """Share of all CPUs that other processes used while this probe was measured (the tool
    and its probe workers excluded), from ``machine.host.read_cpu_times``; None where unknown."""
    measured_at: float | None = ABSENT
    """Unix time (s) its last worker process finished: how old a cached value is
    (``analysis.staleness``); absent from files written before it existed."""

    @property
    def unavailable(self) -> bool:
        """It cannot be measured on this machine (its worker raised the kit's
        ``Unavailable``: a CPU without the instructions it measures), which is no failure."""
        return self.value is None and (self.error or "").startswith(UNAVAILABLE_PREFIX)


UNAVAILABLE_PREFIX = "Unavailable: "
"""How a probe's error begins when it cannot run here (``worker.main``: the exception's type
name, then its message)."""

Probes = Mapping[str, ProbeResult]
"""A summary's ``probes``: {name: result} (read-only)."""


def probe_details(probes: Probes, name: str) -> Mapping[str, object]:
    """Probe ``name``'s ``details`` ({} without the probe or any): what a reader that scans them
    (rates by width, the families measured) takes; one positive figure is
    :func:`probe_value`.  With it, the one way analysis and machine read a probe."""
    probe = probes.get(name)
    return (probe.details or {}) if probe is not None else {}


def probe_detail(probes: Probes, name: str, key: str) -> object:
    """One of probe ``name``'s ``details`` as stored (a number of any sign, a list, a string),
    None where it is missing (:func:`probe_details`)."""
    return probe_details(probes, name).get(key)


def probe_value(probes: Probes, name: str, detail: str | None = None) -> float | None:
    """A probe's positive value (or one of its ``details``) from a summary's ``probes``."""
    probe = probes.get(name)
    if probe is None:
        return None
    value = probe_detail(probes, name, detail) if detail else probe.value
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def probe_records(data: Mapping[str, object]) -> dict[str, ProbeResult]:
    """{name: record} from parsed JSON {name: {value, unit, spread, layer, details, ...}}
    (a cache entry, a test's table); records are kept as they are."""
    return {name: from_json(ProbeResult, probe) for name, probe in data.items()}
