"""The combined summary of ``overhead-tui interpreters``: the same ladder on several Pythons.

``{"kind": "interpreters", "schema_version": 1, "created", "settings",
"interpreters": [{"python": {implementation, version, executable, free_threaded, jit},
"run_dir", "provision", "error", "scenarios": [the usual per-scenario records]}]}``; the first
interpreter is the tool's own (the baseline).  ``interpreters.schema.json`` beside this file is
its JSON Schema; each ``run_dir`` holds that interpreter's ordinary run (``summary.json``), so
``compare`` works between any two of them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from overhead_tui.summary.records import ScenarioResult, SummaryError, _build

SCHEMA_VERSION = 1


@dataclass
class InterpreterRun:
    """One interpreter's ladder."""

    python: dict[str, Any]
    """{implementation, version, executable, free_threaded (bool), jit (None, "enabled",
    "disabled")}."""
    run_dir: str | None = None
    scenarios: list[ScenarioResult] = field(default_factory=list)
    provision: dict[str, Any] | None = None
    """The environment the tool made for it (``engine.provision.Provisioned``), if any."""
    error: str | None = None
    """Why it did not run (cannot be provisioned or checked); None when it ran."""

    @property
    def label(self) -> str:
        """``CPython 3.12.1`` (+ ``free-threaded``, ``JIT``)."""
        p = self.python
        parts = [f"{p.get('implementation', 'Python')} {p.get('version', '?')}"]
        if p.get("free_threaded"):
            parts.append("free-threaded")
        if p.get("jit") == "enabled":
            parts.append("JIT")
        return " ".join(parts)

    def scenario(self, name: str) -> ScenarioResult | None:
        """The result of ``name`` on this interpreter, if it ran."""
        return next((s for s in self.scenarios if s.name == name), None)


@dataclass
class InterpretersSummary:
    """Every interpreter's ladder, the baseline first."""

    interpreters: list[InterpreterRun] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    kind: str = "interpreters"
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return dataclasses.asdict(self)

    def dumps(self) -> str:
        """Sorted, indented JSON text ending in a newline."""
        return json.dumps(self.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file in the same folder, then rename)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".interpreters-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.dumps())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)

    @classmethod
    def from_json(cls, data: Any) -> InterpretersSummary:
        """Build from parsed JSON after checking it against the schema.

        Raises:
            SummaryError: not a combined summary this tool reads.
        """
        validate(data)
        return cls(
            interpreters=[
                InterpreterRun(
                    python=dict(entry["python"]),
                    run_dir=entry.get("run_dir"),
                    scenarios=[_build(ScenarioResult, s) for s in entry["scenarios"]],
                    provision=entry.get("provision"),
                    error=entry.get("error"),
                )
                for entry in data["interpreters"]
            ],
            settings=dict(data["settings"]),
            created=data["created"],
        )

    @classmethod
    def load(cls, path: Path) -> InterpretersSummary:
        """Read a combined summary file.

        Raises:
            SummaryError: missing, not JSON, or not a combined summary.
        """
        try:
            data = json.loads(Path(path).read_bytes())
        except OSError as exc:
            raise SummaryError(f"cannot read {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise SummaryError(f"{path} is not JSON ({exc})") from None
        return cls.from_json(data)


@cache
def schema() -> dict[str, Any]:
    """The combined summary's JSON Schema (``interpreters.schema.json``)."""
    text = resources.files(__package__).joinpath("interpreters.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


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


def layer_ns(result: ScenarioResult) -> dict[str, float]:
    """Modelled ns per multiply-add by layer (the breakdown's rows summed per layer)."""
    rows = (result.breakdown or {}).get("rows") or []
    out: dict[str, float] = {}
    for row in rows:
        if row.get("ns_per_fma") is not None:
            out[row["layer"]] = out.get(row["layer"], 0.0) + float(row["ns_per_fma"])
    return out


def biggest_change(
    baseline: ScenarioResult | None, other: ScenarioResult | None
) -> tuple[str, float] | None:
    """The layer whose modelled cost per multiply-add changed most from ``baseline`` to
    ``other``, and the change (ns per FMA, negative = cheaper); None without two breakdowns."""
    if baseline is None or other is None or not baseline.breakdown or not other.breakdown:
        return None
    before, after = layer_ns(baseline), layer_ns(other)
    deltas = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in set(before) | set(after)}
    if not deltas:
        return None
    layer = max(sorted(deltas), key=lambda k: abs(deltas[k]))
    return layer, deltas[layer]
