"""The one JSON path of the package's typed records: :func:`to_json` and :func:`from_json`.
Standard library only (the worker protocol, ``worker.protocol``, uses it under any interpreter).

Records are dataclasses; both directions follow their fields and type annotations, so a record
written and read back is equal to itself and its JSON is the dict the tool always wrote.  Three
field options (``dataclasses.field`` metadata) keep the keys on disk as they were:

* :data:`JSON_NAME`: the key's name in JSON when it cannot be a field's (``from`` of a
  waterfall step);
* :data:`OMIT`: the key is left out while the field holds its default — a key written only
  sometimes (an interval the model had), or absent from older files.  A field whose key is
  sometimes ``null`` and sometimes absent defaults to :data:`ABSENT` (falsy, never written);
* :data:`IN_MEMORY`: never written nor read (a figure used on the way, e.g. a profiled time).

Reading ignores unknown keys and fills missing ones with their defaults (older files).
``strict=True`` (a worker's line or task) also checks every value against its field's type
(``int``, ``float`` — an int is taken —, ``str``, ``bool``, ``X | None``, lists and tuples,
records, dicts) and that no field without a default is missing: a :class:`DecodeError` names
the field, e.g. ``sample.index`` or ``counted.bytecode[0].offset``.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import tempfile
import types
import typing
from pathlib import Path
from typing import Any, Literal, TypeVar, Union

T = TypeVar("T")

JSON_NAME = "json"
"""Field metadata key: the field's key in JSON, e.g. ``field(metadata={JSON_NAME: "from"})``."""
OMIT = {"omit": True}
"""Field metadata: leave the key out while the field holds its default."""
IN_MEMORY = {"in_memory": True}
"""Field metadata: the field is never written nor read (a figure used on the way)."""

Interval = tuple[float, float]
"""[low, high] (written as a two-number JSON list)."""


class DecodeError(ValueError):
    """JSON that is not the record expected (``strict`` reading); the message names the field."""


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


def record_json(record: Any) -> dict[str, Any]:
    """A record (a dataclass instance) as a JSON object: :func:`to_json` typed for records."""
    found = to_json(record)
    if not isinstance(found, dict):
        raise TypeError(f"{type(record).__name__} is not a record")
    return found


def to_json(value: Any) -> Any:
    """``value`` as JSON-ready data: records become dicts (by their fields' keys), tuples
    lists; dicts and lists are copied."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if (
                item is ABSENT
                or f.metadata.get("in_memory")
                or (f.metadata.get("omit") and item == _default(f))
            ):
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


def from_json(cls: type[T], data: Any, *, strict: bool = False, where: str = "") -> T:
    """Build record ``cls`` from parsed JSON (a dict), converting nested records by the fields'
    annotations; unknown keys are ignored, missing ones take their defaults.  A ``cls``
    instance is returned as it is.

    ``strict``: also check each value against its field's type and that no field without a
    default is missing; ``where`` names the record in the error (default: the class's name).

    Raises:
        DecodeError: (strict only) not an object, a missing field, a value of the wrong type.
    """
    if isinstance(data, cls):
        return data
    check = (where or cls.__name__) if strict else None
    if check is not None and not isinstance(data, dict):
        raise DecodeError(f"{check}: expected an object, got {data!r:.80}")
    record: Any = cls  # a dataclass: hashable (cached hints) and with fields
    hints = _hints(record)
    kwargs = {}
    for f in dataclasses.fields(record):
        name = f.metadata.get(JSON_NAME, f.name)
        if f.metadata.get("in_memory"):
            continue
        if name in data:
            kwargs[f.name] = _convert(hints[f.name], data[name], _at(check, f".{name}"))
        elif check is not None and _default(f) is dataclasses.MISSING:
            raise DecodeError(f"{check}: missing field {name}")
    return cls(**kwargs)


def _at(where: str | None, step: str) -> str | None:
    """The path of a nested value while checking (``sample.index``), None while not."""
    return None if where is None else where + step


def _convert(tp: Any, value: Any, where: str | None = None) -> Any:
    """``value`` (parsed JSON) as type ``tp``; ``where``: the value's path when checking
    (strict: a :class:`DecodeError` naming it if the type is wrong), None when not."""
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return _union(tp, value, where)
    if (value is None and where is None) or tp is Any:
        return value
    args = typing.get_args(tp)
    if dataclasses.is_dataclass(tp) and isinstance(value, dict):
        return _record(tp, value, where)
    if origin in (list, tuple) and isinstance(value, (list, tuple)):
        item = args[0] if args else Any
        if where is not None or _typed(item):
            value = [_convert(item, x, _at(where, f"[{i}]")) for i, x in enumerate(value)]
        return origin(value)
    if origin is dict and isinstance(value, dict):
        if _typed(args[1]):
            return {k: _convert(args[1], v, _at(where, f"[{k!r}]")) for k, v in value.items()}
        return dict(value)
    if where is None:
        return value
    if dataclasses.is_dataclass(tp) or origin is dict:
        raise DecodeError(f"{where}: expected an object, got {value!r:.80}")
    if origin in (list, tuple):
        raise DecodeError(f"{where}: expected a list, got {value!r:.80}")
    if origin is Literal:
        if value in args:
            return value
        raise DecodeError(f"{where}: {value!r:.80} is not one of {', '.join(map(repr, args))}")
    if tp is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    plain = tp is bool or not isinstance(value, bool)  # True is no int
    if tp in (int, str, bool) and isinstance(value, tp) and plain:
        return value
    raise DecodeError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {value!r:.80}")


def _union(tp: Any, value: Any, where: str | None) -> Any:
    """``value`` as one of the union ``tp``'s types: checking, the first that fits; not, the
    record when it is an object, else the one type or the value as it is."""
    arms = [a for a in typing.get_args(tp) if a not in (type(None), _Absent)]
    if value is None and (where is None or type(None) in typing.get_args(tp)):
        return None
    if where is None:
        records = [a for a in arms if dataclasses.is_dataclass(a)]
        if isinstance(value, dict) and records:
            return _record(records[0], value, None)
        return _convert(arms[0], value) if len(arms) == 1 else value
    for arm in arms:
        try:
            return _convert(arm, value, where)
        except DecodeError:
            continue
    raise DecodeError(f"{where}: {value!r:.80} is not {tp}")


def _record(tp: Any, value: dict[str, Any], where: str | None) -> Any:
    """A nested record: by its own ``from_json`` when it has one (a profile) and not checking,
    else by fields."""
    own = getattr(tp, "from_json", None)
    if own is not None and where is None:
        return own(value)
    return from_json(tp, value, strict=where is not None, where=where or "")


@functools.cache
def _typed(tp: Any) -> bool:
    """Whether values of ``tp`` need converting (they contain a record or a tuple)."""
    if dataclasses.is_dataclass(tp) or typing.get_origin(tp) is tuple:
        return True
    return any(_typed(a) for a in typing.get_args(tp) if a is not Ellipsis)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same folder (made with
    the folder if missing), readable by all (0644, where ``mkstemp`` gives 0600: summaries and
    caches are meant to be shared), then renamed over ``path``, so a reader sees the old file
    or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
