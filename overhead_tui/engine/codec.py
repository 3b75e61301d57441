"""Frozen dataclasses to and from JSON objects, each field's type checked on the way in: the
codec under ``engine.protocol``.  Standard library only (the worker imports it under other
interpreters).

Field types understood: ``int``, ``float`` (an int is taken), ``str``, ``bool``, ``X | None``,
``tuple[X, ...]`` (a JSON list), nested dataclasses (objects), and ``dict[str, Any]`` (an
object carried as is: a payload whose shape belongs to the summary or a plugin file).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, TypeVar

OMITTED_WHEN_NONE = {"omit_none": True}
"""Field metadata: the key is absent from the JSON when the value is None."""


class ProtocolError(ValueError):
    """A line or SPEC that is not a valid protocol record (the message says which part)."""


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_dict(value)
    if isinstance(value, tuple | list):
        return [_plain(x) for x in value]
    return value


def to_dict(record: object) -> dict[str, Any]:
    """A record as its JSON object: every field, less those :data:`OMITTED_WHEN_NONE` that are
    None; a message first gets its kind (the class's ``event``) as ``"event"``."""
    assert dataclasses.is_dataclass(record) and not isinstance(record, type)
    event = getattr(type(record), "event", None)
    out: dict[str, Any] = {"event": event} if isinstance(event, str) else {}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if value is None and f.metadata.get("omit_none"):
            continue
        out[f.name] = _plain(value)
    return out


R = TypeVar("R")


def build(cls: type[R], data: object, where: str, strict: bool) -> R:
    """Instantiate record ``cls`` from a parsed JSON object, checking each field's type;
    ``strict``: an unknown key is an error too (else it is ignored).

    Raises:
        ProtocolError: not an object, a missing or (strict) unknown field, a wrong type.
    """
    if not isinstance(data, dict):
        raise ProtocolError(f"{where}: expected an object, got {data!r:.80}")
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if strict and (unknown := sorted(set(data) - set(known))):
        raise ProtocolError(f"{where}: unknown field(s) {', '.join(unknown)}")
    values = {}
    for name, f in known.items():
        if name in data:
            values[name] = _convert(hints[name], data[name], f"{where}.{name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ProtocolError(f"{where}: missing field {name}")
    return cls(**values)


def _convert(tp: Any, value: object, where: str) -> Any:
    """``value`` (parsed JSON) as type ``tp``, or a ProtocolError naming ``where``."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in typing.get_args(tp):
            return None
        for arm in typing.get_args(tp):
            if arm is type(None):
                continue
            try:
                return _convert(arm, value, where)
            except ProtocolError:
                continue
        raise ProtocolError(f"{where}: {value!r:.80} is not {tp}")
    if tp is Any:
        return value
    if origin is tuple:
        if not isinstance(value, list):
            raise ProtocolError(f"{where}: expected a list, got {value!r:.80}")
        (item, _) = typing.get_args(tp)
        return tuple(_convert(item, x, f"{where}[{i}]") for i, x in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: expected an object, got {value!r:.80}")
        return value
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ProtocolError(f"{where}: expected an object, got {value!r:.80}")
        return build(tp, value, where, strict=False)
    if tp is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if tp is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tp in (str, bool) and isinstance(value, tp):
        return value
    raise ProtocolError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {value!r:.80}")
