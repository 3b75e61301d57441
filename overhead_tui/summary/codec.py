"""The one JSON path of the summary's typed records: :func:`to_json` and :func:`from_json`.

Records are dataclasses; both directions follow their fields and type annotations, so a record
written and read back is equal to itself and its JSON is the dict the tool always wrote.  Two
field options (``dataclasses.field`` metadata) keep the keys on disk as they were:

* :data:`JSON_NAME`: the key's name in JSON when it cannot be a field's (``from`` of a
  waterfall step);
* :data:`OMIT`: the key is left out while the field holds its default — a key written only
  sometimes (an interval the model had), or absent from older files.  A field whose key is
  sometimes ``null`` and sometimes absent defaults to :data:`ABSENT` (falsy, never written).

Reading ignores unknown keys and fills missing ones with their defaults (older files).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")

JSON_NAME = "json"
"""Field metadata key: the field's key in JSON, e.g. ``field(metadata={JSON_NAME: "from"})``."""
OMIT = {"omit": True}
"""Field metadata: leave the key out while the field holds its default."""

Interval = tuple[float, float]
"""[low, high] (written as a two-number JSON list)."""


class _Absent:
    """The type of :data:`ABSENT`."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> Literal[False]:
        return False

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
"""A key absent from the JSON (as opposed to present and ``null``); falsy."""


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def to_json(value: Any) -> Any:
    """``value`` as JSON-ready data: records become dicts (by their fields' keys), tuples
    lists; dicts and lists are copied."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if item is ABSENT or (f.metadata.get("omit") and item == _default(f)):
                continue
            out[f.metadata.get(JSON_NAME, f.name)] = _encode(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_encode(x) for x in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _encode(value: Any) -> Any:
    """A nested value; a record with a ``to_json`` method of its own (a profile) uses it."""
    own = getattr(type(value), "to_json", None)
    return value.to_json() if own is not None else to_json(value)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(cls: type[T], data: Any) -> T:
    """Build record ``cls`` from parsed JSON (a dict), converting nested records by the fields'
    annotations; unknown keys are ignored, missing ones take their defaults.  A ``cls``
    instance is returned as it is."""
    if isinstance(data, cls):
        return data
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        name = f.metadata.get(JSON_NAME, f.name)
        if name in data:
            kwargs[f.name] = _convert(hints[f.name], data[name])
    return cls(**kwargs)


def _convert(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        options = [a for a in typing.get_args(tp) if a not in (type(None), _Absent)]
        records = [a for a in options if dataclasses.is_dataclass(a)]
        if isinstance(value, dict) and records:
            return _record(records[0], value)
        return _convert(options[0], value) if len(options) == 1 else value
    if dataclasses.is_dataclass(tp):
        return _record(tp, value) if isinstance(value, dict) else value
    args = typing.get_args(tp)
    if origin is list and isinstance(value, list):
        return [_convert(args[0], x) for x in value] if _typed(args[0]) else list(value)
    if origin is tuple and isinstance(value, (list, tuple)):
        return tuple(value)
    if origin is dict and isinstance(value, dict):
        if _typed(args[1]):
            return {k: _convert(args[1], v) for k, v in value.items()}
        return dict(value)
    return value


def _record(tp: Any, value: dict[str, Any]) -> Any:
    """A nested record: by its own ``from_json`` when it has one (a profile), else by fields."""
    own = getattr(tp, "from_json", None)
    return own(value) if own is not None else from_json(tp, value)


@functools.cache
def _typed(tp: Any) -> bool:
    """Whether values of ``tp`` need converting (they contain a record or a tuple)."""
    if dataclasses.is_dataclass(tp) or typing.get_origin(tp) is tuple:
        return True
    return any(_typed(a) for a in typing.get_args(tp) if a is not Ellipsis)
