"""A profile run as typed records: :class:`ProfileRecord` and one result per backend.

The JSON (``ScenarioResult.profile``, ``overhead-tui profile --json``) is
``{"scenario", "n", "dtype", "baseline_per_call_s", "baseline_source", "baseline_calls",
"error"?, "cancelled"?, "backends": {name: part}}``; a part has ``status`` (ok | unavailable |
failed), ``version``, ``reason`` / ``fix`` (when not ok), ``slowdown`` and ``notes`` (when
there are any), and, when ok, its backend's own fields (:class:`PerfResult`,
:class:`PyspyResult`, :class:`CallgrindResult`, :class:`ScaleneResult`).  :meth:`to_json` writes
exactly the keys the profile run wrote; :meth:`from_json` reads any version (keys it does not
know are dropped).  Shares are fractions (0..1), times seconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar


@dataclass(frozen=True)
class SymbolRow:
    """One symbol's self share (perf: of the samples; callgrind: of the instructions)."""

    symbol: str
    library: str
    fraction: float
    layer: str
    instructions_per_fma: float | None = None
    """callgrind only: the symbol's own instructions per multiply-add."""

    def to_json(self) -> dict[str, object]:
        """``{symbol, library, fraction, layer}`` (+ ``instructions_per_fma``: callgrind)."""
        out = asdict(self)
        if self.instructions_per_fma is None:
            del out["instructions_per_fma"]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SymbolRow:
        """From a ``top_symbols`` row."""
        return cls(
            str(data.get("symbol")),
            str(data.get("library", "")),
            data.get("fraction") or 0.0,
            str(data.get("layer", "")),
            data.get("instructions_per_fma"),
        )


@dataclass(frozen=True)
class FrameRow:
    """One frame of py-spy's top-N table: shares of the kernel's samples."""

    frame: str
    self_share: float
    """Samples ending in this frame (JSON ``self``)."""
    total: float
    """Samples with this frame anywhere on the stack."""

    def to_json(self) -> dict[str, object]:
        """``{frame, self, total}``."""
        return {"frame": self.frame, "self": self.self_share, "total": self.total}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FrameRow:
        """From a ``top_frames`` row."""
        return cls(str(data["frame"]), data["self"], data["total"])


@dataclass(frozen=True)
class LineRow:
    """One source line's share of Scalene's CPU time (python, native, system)."""

    lineno: int | None
    line: str
    python: float
    native: float
    system: float

    def to_json(self) -> dict[str, object]:
        """``{lineno, line, python, native, system}``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LineRow:
        """From a ``lines`` row."""
        return cls(
            data.get("lineno"),
            str(data.get("line", "")),
            data.get("python", 0.0),
            data.get("native", 0.0),
            data.get("system", 0.0),
        )


@dataclass(frozen=True)
class CpuShares:
    """Scalene's totals over the scenario's lines (fractions of its CPU time)."""

    python: float = 0.0
    native: float = 0.0
    system: float = 0.0


@dataclass(frozen=True)
class BackendResult:
    """One backend's part of a profile: its status and, when ok, its figures (subclasses).

    ``profiled_per_call_s`` (the profiled worker's time per call, s) is in memory only: the
    profile run turns it into ``slowdown``.
    """

    status: str
    version: str | None = None
    reason: str | None = None
    fix: str | None = None
    slowdown: float | None = None
    """Profiled time per call over the unprofiled baseline's (None: no ratio)."""
    notes: tuple[str, ...] = ()
    """What the backend cannot see in this rung (``profilers.profile.blind_spots``)."""
    profiled_per_call_s: float | None = field(default=None, compare=False, repr=False)

    OWN: ClassVar[tuple[str, ...]] = ()
    """The subclass's own JSON keys, written when the status is ok."""
    NEWER: ClassVar[tuple[str, ...]] = ()
    """Own keys older profiles lack: written only when not None."""

    @property
    def ok(self) -> bool:
        """True when the backend profiled the scenario."""
        return self.status == "ok"

    def to_json(self) -> dict[str, object]:
        """The part's JSON: ``status``, ``version``, then what this part carries."""
        out: dict[str, object] = {"status": self.status, "version": self.version}
        if self.reason is not None or self.status == "unavailable":
            out["reason"] = self.reason
        if self.fix is not None or self.status == "unavailable":
            out["fix"] = self.fix
        if self.slowdown is not None:
            out["slowdown"] = self.slowdown
        if self.notes:
            out["notes"] = list(self.notes)
        if self.ok:
            for name in self.OWN:
                value = getattr(self, name)
                if value is not None or name not in self.NEWER:
                    out[name] = _dump(value)
        return out

    @classmethod
    def _common(cls, data: dict[str, Any]) -> dict[str, Any]:
        return {
            "status": str(data.get("status", "not run")),
            "version": data.get("version"),
            "reason": data.get("reason"),
            "fix": data.get("fix"),
            "slowdown": data.get("slowdown"),
            "notes": tuple(data.get("notes") or ()),
        }


@dataclass(frozen=True)
class PerfResult(BackendResult):
    """perf's self time: ``samples`` (perf's count, as it printed it), shares by layer and
    the top symbols."""

    samples: str | int | None = None
    layers: dict[str, float] = field(default_factory=dict)
    top_symbols: tuple[SymbolRow, ...] = ()
    OWN: ClassVar[tuple[str, ...]] = ("samples", "layers", "top_symbols")


@dataclass(frozen=True)
class PyspyResult(BackendResult):
    """py-spy's kernel samples: their count, the share ending in native frames, the top frames
    and py-spy's error count.  ``native``: run with ``--native`` (C frames named)."""

    native: bool | None = None
    samples: int | None = None
    native_fraction: float | None = None
    top_frames: tuple[FrameRow, ...] = ()
    errors: int | None = None
    OWN: ClassVar[tuple[str, ...]] = (
        "native",
        "samples",
        "native_fraction",
        "top_frames",
        "errors",
    )
    NEWER: ClassVar[tuple[str, ...]] = ("native",)


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
    OWN: ClassVar[tuple[str, ...]] = (
        "n",
        "instructions",
        "instructions_per_fma",
        "floats_per_fma",
        "layers",
        "top_symbols",
    )


@dataclass(frozen=True)
class ScaleneResult(BackendResult):
    """Scalene's per-line shares of the scenario's source, their totals and its elapsed
    time (s)."""

    lines: tuple[LineRow, ...] = ()
    totals: CpuShares = field(default_factory=CpuShares)
    elapsed_s: float | None = None
    OWN: ClassVar[tuple[str, ...]] = ("lines", "totals", "elapsed_s")


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
    own: dict[str, Any] = {}
    for f in fields(kind):
        if f.name in kind.OWN and f.name in data:
            own[f.name] = _load(f.name, data[f.name])
    return kind(**BackendResult._common(data), **own)


def _dump(value: object) -> object:
    if isinstance(value, tuple):
        return [_dump(x) for x in value]
    if isinstance(value, CpuShares):
        return asdict(value)
    if isinstance(value, dict):
        return dict(value)
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json else value


_ROWS = {"top_symbols": SymbolRow, "top_frames": FrameRow, "lines": LineRow}


def _load(name: str, value: Any) -> object:
    if name in _ROWS:
        return tuple(_ROWS[name].from_json(x) for x in value or ())
    if name == "totals":
        return CpuShares(**{k: v for k, v in (value or {}).items() if k in _SHARES})
    if name == "layers":
        return dict(value or {})
    return value


_SHARES = ("python", "native", "system")


@dataclass(frozen=True)
class ProfileRecord:
    """One scenario profiled by each backend, against an unprofiled baseline.

    ``baseline_per_call_s``: the unprofiled worker's time per call (s; None when it did not
    run); ``baseline_source``: where it came from (``profilers.profile.BASELINE_SOURCES``;
    None in profiles that predate it); ``baseline_calls``: its calls; ``error``: why nothing
    was profiled; ``cancelled``: stopped part-way (incomplete).
    """

    scenario: str
    n: int
    dtype: str
    backends: dict[str, BackendResult] = field(default_factory=dict)
    baseline_per_call_s: float | None = None
    baseline_source: str | None = None
    baseline_calls: int | None = None
    error: str | None = None
    cancelled: bool = False

    def to_json(self) -> dict[str, object]:
        """The profile JSON (the keys the profile run wrote; see the module docstring)."""
        out: dict[str, object] = {
            "scenario": self.scenario,
            "n": self.n,
            "dtype": self.dtype,
            "baseline_per_call_s": self.baseline_per_call_s,
            "backends": {name: part.to_json() for name, part in self.backends.items()},
        }
        if self.baseline_source is not None:  # written together since the field exists
            out["baseline_source"] = self.baseline_source
            out["baseline_calls"] = self.baseline_calls
        if self.error is not None:
            out["error"] = self.error
        if self.cancelled:
            out["cancelled"] = True
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProfileRecord:
        """From the profile JSON of any version (unknown keys are dropped)."""
        return cls(
            scenario=str(data.get("scenario", "")),
            n=data.get("n", 0),
            dtype=str(data.get("dtype", "float64")),
            backends={
                name: backend_from_json(name, part)
                for name, part in (data.get("backends") or {}).items()
            },
            baseline_per_call_s=data.get("baseline_per_call_s"),
            baseline_source=data.get("baseline_source"),
            baseline_calls=data.get("baseline_calls"),
            error=data.get("error"),
            cancelled=bool(data.get("cancelled", False)),
        )
