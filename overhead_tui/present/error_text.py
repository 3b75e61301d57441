"""An error in one line, for the views that print one line a scenario (progress, tables, the
watch): the summary and the run's log keep the whole text (a build's output, a traceback)."""

from __future__ import annotations


def headline(error: str) -> str:
    """The first line of ``error``; where that only announces a tool's output (it ends with
    ":", as "BuildError: /usr/bin/cc failed:" does), the first line after it that names an
    error (the compiler's ``rung.c:2:5: error: …``) joins it.  "" for an empty error."""
    lines = [x.strip() for x in error.splitlines() if x.strip()]
    if not lines:
        return ""
    first = lines[0]
    if first.endswith(":"):
        named = next((x for x in lines[1:] if "error" in x.lower()), None)
        if named is not None:
            return f"{first} {named}"
    return first
