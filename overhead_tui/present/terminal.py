"""What the user's terminal and output streams can take: encodings and colour (no UI imports).

- Output streams whose encoding cannot print a character (``PYTHONIOENCODING=ascii``, a C
  locale) get an ASCII stand-in instead of a ``UnicodeEncodeError`` that would lose the table:
  :func:`use_ascii_fallback` sets the ``errors`` handler of ``sys.stdout`` and ``sys.stderr`` to
  :data:`ASCII_FALLBACK` (``×`` -> ``x``, ``—`` -> ``-``, ``µ`` -> ``u``, a bar block -> ``#``,
  anything else -> ``?``).  Streams that can print the text are not touched.
- :func:`colour_wanted`: no colour when ``NO_COLOR`` is set (https://no-color.org, any value)
  or ``TERM`` is ``dumb``.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from collections.abc import Mapping

ASCII_FALLBACK = "overhead_tui.ascii"
"""Name of the codec error handler registered by this module."""

ASCII_FOR: dict[str, str] = {
    "×": "x",
    "—": "-",
    "–": "-",
    "−": "-",
    "…": "...",
    "µ": "u",
    "·": "|",
    "→": "->",
    "←": "<-",
    "≤": "<=",
    "≥": ">=",
    "≈": "~",
    "³": "^3",
    "²": "^2",
    "±": "+/-",
    "°": " deg",
    "●": "*",
    "•": "*",
    "✓": "ok",
    "✗": "x",
    "▁": "_",
    "▏": "|",
}
"""ASCII stand-ins for the characters the tool prints; block elements (bars) become ``#``."""


def ascii_for(char: str) -> str:
    """The ASCII stand-in of one character (``?`` when there is none)."""
    if char in ASCII_FOR:
        return ASCII_FOR[char]
    if "\u2580" <= char <= "\u259f" or "\u2800" <= char <= "\u28ff":  # blocks, braille bars
        return "#"
    if "\u2500" <= char <= "\u257f":  # box drawing
        return "-"
    return "?"


def _fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    return "".join(ascii_for(c) for c in text), exc.end


codecs.register_error(ASCII_FALLBACK, _fallback)


def to_ascii(text: str) -> str:
    """``text`` with every non-ASCII character replaced by its stand-in."""
    return text.encode("ascii", errors=ASCII_FALLBACK).decode("ascii")


def use_ascii_fallback(*streams: object) -> None:
    """Make ``streams`` (default: stdout and stderr) print an ASCII stand-in for what their
    encoding cannot encode, when they are text streams that can be reconfigured."""
    for stream in streams or (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        encoding = getattr(stream, "encoding", None)
        if reconfigure is None or not encoding or _is_utf(encoding):
            continue
        with contextlib.suppress(ValueError, OSError):  # cannot change now: leave it as it is
            reconfigure(errors=ASCII_FALLBACK)


def _is_utf(encoding: str) -> bool:
    return codecs.lookup(encoding).name.startswith("utf")


def colour_wanted(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``NO_COLOR`` is set (any value, even empty) or ``TERM`` is ``dumb``."""
    env = os.environ if environ is None else environ
    return "NO_COLOR" not in env and env.get("TERM", "") != "dumb"
