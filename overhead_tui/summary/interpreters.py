"""The combined summary of ``overhead-tui interpreters``: the same ladder on several Pythons.

``{"kind": "interpreters", "schema_version": 1, "created", "settings",
"interpreters": [{"python": {implementation, version, executable, free_threaded, jit},
"run_dir", "provision", "error", "scenarios": [the usual per-scenario records]}]}``; the first
interpreter is the tool's own (the baseline).  ``interpreters.schema.json`` beside this file is
its JSON Schema; each ``run_dir`` holds that interpreter's ordinary run (``summary.json``), so
``compare`` works between any two of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from overhead_tui.summary.codec import from_json, to_json, write_atomic
from overhead_tui.summary.records import MAX_SUMMARY_BYTES, ScenarioResult, Settings
from overhead_tui.summary.validation import SummaryError, refuse_non_finite

SCHEMA_VERSION = 1

JIT_LABELS = {"enabled": "jit on", "disabled": "jit off"}
"""Column label suffix of each state of the experimental JIT."""


@dataclass(frozen=True)
class PythonInfo:
    """What an interpreter is (an entry's ``python``): the run's interpreter facts
    (``records.PythonInfo``) plus how it was built."""

    implementation: str
    """``CPython``, ``PyPy`` ..."""
    version: str
    """``3.12.1``."""
    executable: str
    free_threaded: bool
    """A free-threaded build (``Py_GIL_DISABLED``) running without the GIL."""
    jit: str | None
    """The experimental JIT: ``"enabled"``, ``"disabled"`` (built with it, off), or None
    (not built with it)."""

    @property
    def label(self) -> str:
        """A short column title: ``CPython 3.13.0``, ``+ free-threaded``, ``+ jit on`` /
        ``jit off`` (a build with the experimental JIT)."""
        parts = [f"{self.implementation} {self.version}"]
        if self.free_threaded:
            parts.append("free-threaded")
        if self.jit in JIT_LABELS:
            parts.append(JIT_LABELS[self.jit])
        return " ".join(parts)


@dataclass(frozen=True)
class Provisioned:
    """The environment the tool made for an interpreter (``interpreters.provision``; an entry's
    ``provision``).  The package maps fill in while it is made."""

    python: str
    """The venv's interpreter (the workers run it)."""
    folder: str
    installed: dict[str, str] = field(default_factory=dict)
    """package → version installed."""
    nearest: dict[str, str] = field(default_factory=dict)
    """package → the tool's version, where another (``installed``) stands in for it."""
    missing: dict[str, str] = field(default_factory=dict)
    """package → why it could not be installed (its rungs are skipped there)."""
    reused: bool = False
    """True when the stamp said the folder was ready (no pip call)."""


@dataclass(frozen=True)
class InterpreterRun:
    """One interpreter's ladder."""

    python: PythonInfo
    run_dir: str | None = None
    scenarios: list[ScenarioResult] = field(default_factory=list)
    provision: Provisioned | None = None
    """The environment the tool made for it, if any."""
    error: str | None = None
    """Why it did not run (cannot be provisioned or checked); None when it ran."""

    @property
    def label(self) -> str:
        """``CPython 3.12.1`` (+ ``free-threaded``, ``jit on`` / ``jit off``)."""
        return self.python.label

    def scenario(self, name: str) -> ScenarioResult | None:
        """The result of ``name`` on this interpreter, if it ran."""
        return next((s for s in self.scenarios if s.name == name), None)


@dataclass(frozen=True)
class InterpretersSummary:
    """Every interpreter's ladder, the baseline first, and the settings they all ran with
    (``settings.python`` is per interpreter: not stored)."""

    interpreters: list[InterpreterRun] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    created: str = ""
    kind: str = "interpreters"
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (see the module docstring)."""
        data: dict[str, Any] = to_json(self)
        del data["settings"]["python"]
        return data

    def dumps(self) -> str:
        """Sorted, indented JSON text ending in a newline."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def save(self, path: Path) -> None:
        """Write atomically (``codec.write_atomic``)."""
        write_atomic(path, self.dumps())

    @classmethod
    def from_json(cls, data: Any) -> InterpretersSummary:
        """Build from parsed JSON after checking it against the schema.

        Raises:
            SummaryError: not a combined summary this tool reads.
        """
        validate(data)
        return from_json(cls, data)

    @classmethod
    def load(cls, path: Path) -> InterpretersSummary:
        """Read a combined summary file.

        Raises:
            SummaryError: missing, not JSON, or not a combined summary.
        """
        try:
            data = json.loads(Path(path).read_bytes(), parse_constant=refuse_non_finite)
        except OSError as exc:
            raise SummaryError(f"cannot read {path}: {exc.strerror or exc}") from None
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise SummaryError(f"{path} is not JSON ({exc})") from None
        return cls.from_json(data)


def is_interpreters_summary(path: Path) -> bool:
    """True when ``path`` is a JSON file saying ``"kind": "interpreters"`` (a combined summary,
    not a run's summary.json); False for anything else, unreadable files included."""
    path = Path(path)
    if not path.is_file() or path.stat().st_size > MAX_SUMMARY_BYTES:
        return False
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and data.get("kind") == "interpreters"


@cache
def schema() -> dict[str, Any]:
    """The combined summary's JSON Schema (``interpreters.schema.json``)."""
    text = resources.files(__package__).joinpath("interpreters.schema.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def validate(data: Any) -> None:
    """Check ``data`` against :func:`schema`.

    Raises:
        SummaryError: the first problem, with where it is.
    """
    import jsonschema

    if not isinstance(data, dict) or data.get("kind") != "interpreters":
        raise SummaryError("not an overhead-tui interpreters summary (no kind: interpreters)")
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "(top level)"
        raise SummaryError(f"invalid interpreters summary at {where}: {error.message}")
