"""Write ``overhead_tui/summary/schema.json`` from the summary's records (``make docs`` and the
test suite check it is current): every record a ``summary.json`` holds becomes a ``$defs``
entry with its fields' JSON types, ``Literal`` fields an ``enum``, and each field's docstring
its ``description``.  Nothing is kept by hand.

What it checks of a file: each key's type (a number where a number belongs, an allowed status,
a list of records …); seconds (a number field or list whose name ends in ``_s``) are never
negative.  It requires a record's fields that have no default, and those whose metadata says
``required`` (the summary's ``machine``, ``settings`` …): keys a file of an older version
lacks are read as absent (``summary.codec``), and keys it has that the records no longer know
are allowed (version 2's ``machine.limits``, …).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCHEMA = ROOT / "overhead_tui" / "summary" / "schema.json"


def _docs() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    import gen_docs

    return gen_docs


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list) and "null" not in kind:
        return {**schema, "type": [*kind, "null"]}
    if "$ref" in schema or "enum" in schema or "anyOf" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


def type_schema(hint: Any, defs: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of one field's type hint (records go into ``defs`` by name)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is Any or hint is object:
        return {}
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        inner = (
            type_schema(rest[0], defs)
            if len(rest) == 1
            else {"anyOf": [type_schema(a, defs) for a in rest]}
        )
        return _nullable(inner) if type(None) in args else inner
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (list, tuple, set, frozenset) or hint in (list, tuple):
        items = [a for a in args if a is not Ellipsis]
        if origin is tuple and len(items) > 1 and len(set(items)) > 1:
            return {"type": "array", "prefixItems": [type_schema(a, defs) for a in items]}
        return {"type": "array", **({"items": type_schema(items[0], defs)} if items else {})}
    if origin is dict or hint is dict:
        value = type_schema(args[1], defs) if len(args) == 2 else {}
        return {"type": "object", **({"additionalProperties": value} if value else {})}
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        record(hint, defs)
        return {"$ref": f"#/$defs/{hint.__name__}"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if hint in simple:
        return {"type": "number"} if hint is float else {"type": simple[hint]}
    return {}


def _not_negative(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` of seconds: its numbers (or its list's) at least 0."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return {**schema, "items": _not_negative(schema["items"])}
    kind = schema.get("type")
    if kind == "number" or (isinstance(kind, list) and "number" in kind):
        return {**schema, "minimum": 0}
    return schema


def record(cls: type, defs: dict[str, Any]) -> None:
    """Add ``cls`` (a dataclass) and every record it holds to ``defs``."""
    if cls.__name__ in defs:
        return
    from overhead_tui.summary.codec import JSON_NAME

    defs[cls.__name__] = {}  # placed first: a record that holds itself stops here
    hints = typing.get_type_hints(cls)
    docs = _docs()._field_docs(cls)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for f in dataclasses.fields(cls):
        if f.metadata.get("in_memory"):
            continue
        key = f.metadata.get(JSON_NAME, f.name)
        schema = type_schema(hints[f.name], defs)
        if f.name.endswith("_s"):
            schema = _not_negative(schema)
        if f.name in docs:
            schema = {**schema, "description": docs[f.name]}
        properties[key] = schema
        no_default = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        if no_default or f.metadata.get("required"):
            required.append(key)
    description = " ".join((cls.__doc__ or "").split())
    defs[cls.__name__] = {"type": "object", "description": description, "properties": properties}
    if required:
        defs[cls.__name__]["required"] = required
    for sub in _subclasses(cls):  # a profile's backends are subclasses of BackendResult
        record(sub, defs)


def _subclasses(cls: type) -> list[type]:
    """The records of the summary that extend ``cls`` (a profile's backend parts), in name
    order; subclasses elsewhere (py-spy's in-memory stacks) are never written."""
    found = [
        s
        for s in cls.__subclasses__()
        if dataclasses.is_dataclass(s) and s.__module__.startswith("overhead_tui.summary")
    ]
    return sorted(found, key=lambda s: s.__name__)


def schema() -> dict[str, Any]:
    """The summary's JSON Schema, from ``RunSummary`` and the records it holds."""
    from overhead_tui.summary.records import RunSummary
    from overhead_tui.summary.validation import READABLE_VERSIONS

    defs: dict[str, Any] = {}
    record(RunSummary, defs)
    top = defs.pop("RunSummary")
    top["properties"]["schema_version"] = {"enum": list(READABLE_VERSIONS)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "overhead-tui/summary.schema.json",
        "title": "overhead-tui run summary (generated from overhead_tui.summary by "
        "scripts/gen_schema.py)",
        **top,
        "required": ["schema_version", *top.get("required", [])],
        "$defs": dict(sorted(defs.items())),
    }


def text() -> str:
    """The schema as the file holds it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    SCHEMA.write_text(text(), encoding="utf-8")
    print(f"wrote {SCHEMA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
