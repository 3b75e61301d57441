"""A profile run as typed records: :class:`ProfileRecord` and one result per backend.

The JSON (``ScenarioResult.profile``, ``overhead-tui profile --json``) is
``{"scenario", "n", "dtype", "baseline_per_call_s", "baseline_source", "baseline_calls",
"error"?, "cancelled"?, "backends": {name: part}}``; a part has ``status`` (ok | unavailable |
failed | cannot see, and in a ``cancelled`` profile interrupted | not run: the words are
``profilers.profile``'s), ``version``, ``reason`` / ``fix`` (when not ok), ``slowdown`` and
``notes`` (when there are any), and, when ok, its backend's own fields (:class:`PerfResult`,
:class:`PyspyResult`, :class:`CallgrindResult`, :class:`ScaleneResult`).  The summary codec
(``summary.codec``) writes exactly the keys the profile run wrote and reads any version (keys
it does not know are dropped); :func:`backend_from_json` picks each part's record by its
backend.  Shares are fractions (0..1), times seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from overhead_tui.summary.codec import (
    ABSENT,
    IN_MEMORY,
    JSON_NAME,
    OMIT,
    from_json,
    record_json,
)


@dataclass(frozen=True)
class SymbolRow:
    """One symbol's self share (perf: of the samples; callgrind: of the instructions):
    ``{symbol, library, fraction, layer}`` (+ ``instructions_per_fma``: callgrind)."""

    symbol: str = ""
    library: str = ""
    fraction: float = 0.0
    layer: str = ""
    instructions_per_fma: float | None = field(default=None, metadata=OMIT)
    """callgrind only: the symbol's own instructions per multiply-add."""


@dataclass(frozen=True)
class FrameRow:
    """One frame of py-spy's top-N table: shares of the kernel's samples ``{frame, self,
    total}``."""

    frame: str
    self_share: float = field(metadata={JSON_NAME: "self"})
    """Samples ending in this frame (JSON ``self``)."""
    total: float
    """Samples with this frame anywhere on the stack."""


@dataclass(frozen=True)
class LineRow:
    """One source line's share of Scalene's CPU time (python, native, system)."""

    lineno: int | None = None
    line: str = ""
    python: float = 0.0
    native: float = 0.0
    system: float = 0.0


@dataclass(frozen=True)
class CpuShares:
    """Scalene's totals over the scenario's lines (fractions of its CPU time)."""

    python: float = 0.0
    native: float = 0.0
    system: float = 0.0


@dataclass(frozen=True)
class BackendResult:
    """One backend's part of a profile: its status and, when ok, its figures (subclasses).

    ``reason`` and ``fix`` are written when set (an unavailable part's even when None: its
    capability's); ``profiled_per_call_s`` (the profiled worker's time per call, s) is in
    memory only: the profile run turns it into ``slowdown``.
    """

    status: str = "not run"
    version: str | None = None
    reason: str | None = ABSENT
    fix: str | None = ABSENT
    slowdown: float | None = field(default=None, metadata=OMIT)
    """Profiled time per call over the unprofiled baseline's (None: no ratio)."""
    notes: tuple[str, ...] = field(default=(), metadata=OMIT)
    """What the backend cannot see in this rung (``profilers.profile.blind_spots``)."""
    profiled_per_call_s: float | None = field(
        default=None, compare=False, repr=False, metadata=IN_MEMORY
    )

    @property
    def ok(self) -> bool:
        """True when the backend profiled the scenario."""
        return self.status == "ok"

    def to_json(self) -> dict[str, Any]:
        """The part's JSON: ``status``, ``version``, then what this part carries."""
        return record_json(self)


@dataclass(frozen=True)
class PerfResult(BackendResult):
    """perf's self time: ``samples`` (perf's count, as it printed it), shares by layer and
    the top symbols."""

    samples: str | int | None = None
    layers: dict[str, float] = field(default_factory=dict)
    top_symbols: tuple[SymbolRow, ...] = ()


@dataclass(frozen=True)
class PyspyResult(BackendResult):
    """py-spy's kernel samples: their count, the share ending in native frames, the top frames
    and py-spy's error count.  ``native``: run with ``--native`` (C frames named; older
    profiles lack the key)."""

    native: bool | None = field(default=None, metadata=OMIT)
    samples: int | None = None
    native_fraction: float | None = None
    top_frames: tuple[FrameRow, ...] = ()
    errors: int | None = None


@dataclass(frozen=True)
class CallgrindResult(BackendResult):
    """callgrind's exact counts of one kernel call at order ``n``: instructions, per
    multiply-add, floats created per multiply-add, shares by layer, top symbols."""

    n: int | None = None
    instructions: int | None = None
    instructions_per_fma: float | None = None
    floats_per_fma: float | None = None
    layers: dict[str, float] = field(default_factory=dict)
    top_symbols: tuple[SymbolRow, ...] = ()


@dataclass(frozen=True)
class ScaleneResult(BackendResult):
    """Scalene's per-line shares of the scenario's source, their totals and its elapsed
    time (s)."""

    lines: tuple[LineRow, ...] = ()
    totals: CpuShares = field(default_factory=CpuShares)
    elapsed_s: float | None = None


RESULTS: dict[str, type[BackendResult]] = {
    "perf": PerfResult,
    "pyspy": PyspyResult,
    "callgrind": CallgrindResult,
    "scalene": ScaleneResult,
}
"""The record of each backend's ok part, by backend name."""


def backend_from_json(name: str, data: dict[str, Any]) -> BackendResult:
    """A backend's part of the profile JSON as its record (its own class when ok)."""
    kind = RESULTS.get(name, BackendResult) if data.get("status") == "ok" else BackendResult
    return from_json(kind, data)


@dataclass(frozen=True)
class ProfileRecord:
    """One scenario profiled by each backend, against an unprofiled baseline.

    ``baseline_per_call_s``: the unprofiled worker's time per call (s; None when it did not
    run); ``baseline_source``: where it came from (``profilers.profile.BASELINE_SOURCES``;
    None in profiles that predate it); ``baseline_calls``: its calls (written with the source;
    ABSENT before it); ``error``: why nothing was profiled; ``cancelled``: stopped part-way
    (incomplete); ``lines_note``: derived, see its field.
    """

    scenario: str = ""
    n: int = 0
    dtype: str = "float64"
    backends: dict[str, BackendResult] = field(default_factory=dict)
    baseline_per_call_s: float | None = None
    baseline_source: str | None = field(default=None, metadata=OMIT)
    baseline_calls: int | None = ABSENT
    error: str | None = field(default=None, metadata=OMIT)
    cancelled: bool = field(default=False, metadata=OMIT)
    lines_note: str | None = field(default=None, metadata=OMIT)
    """Where py-spy and Scalene disagree on the source lines, and why
    (``analysis.agreement.lines_disagreement``)."""

    def to_json(self) -> dict[str, Any]:
        """The profile JSON (the keys the profile run wrote; see the module docstring)."""
        return record_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfileRecord:
        """From the profile JSON of any version (unknown keys are dropped)."""
        parts = data.get("backends") or {}
        record = from_json(cls, {**data, "backends": {}})
        return replace(record, backends={k: backend_from_json(k, v) for k, v in parts.items()})
