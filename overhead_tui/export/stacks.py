"""Stack sample exports: collapsed stacks and speedscope JSON (from py-spy samples).

Collapsed: ``root;...;leaf COUNT`` per line, labels ``name (file:line)`` as py-spy writes
them, lines sorted, ending with a newline (flamegraph.pl, inferno, speedscope read it).
speedscope: the file format of https://www.speedscope.app/file-format-schema.json with one
``sampled`` profile in seconds, frames shared and de-duplicated, sample stacks root -> leaf.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import overhead_tui
from overhead_tui.profilers.pyspy import Stack

SPEEDSCOPE_SCHEMA = "https://www.speedscope.app/file-format-schema.json"


def to_collapsed(stacks: Sequence[Stack]) -> str:
    """Collapsed-stack text for ``stacks`` (counts of identical stacks merged)."""
    merged: dict[str, int] = {}
    for frames, count in stacks:
        key = ";".join(f.label for f in frames)
        merged[key] = merged.get(key, 0) + count
    return "".join(f"{k} {v}\n" for k, v in sorted(merged.items()))


def to_speedscope(stacks: Sequence[Stack], name: str, rate_hz: float) -> dict[str, Any]:
    """A speedscope document with one sampled profile (weights in seconds: 1 / rate)."""
    index: dict[tuple[str, str, int | None], int] = {}
    frames: list[dict[str, Any]] = []
    samples: list[list[int]] = []
    weights: list[float] = []
    for stack, count in stacks:
        ids = []
        for frame in stack:
            key = (frame.name, frame.file, frame.line)
            if key not in index:
                index[key] = len(frames)
                entry: dict[str, Any] = {"name": frame.label if frame.native else frame.name}
                if frame.file:
                    entry["file"] = frame.file
                if frame.line is not None:
                    entry["line"] = frame.line
                frames.append(entry)
            ids.append(index[key])
        samples.extend([ids] * count)
        weights.extend([1.0 / rate_hz] * count)
    return {
        "$schema": SPEEDSCOPE_SCHEMA,
        "exporter": f"overhead-tui@{overhead_tui.__version__}",
        "name": name,
        "activeProfileIndex": 0,
        "shared": {"frames": frames},
        "profiles": [
            {
                "type": "sampled",
                "name": name,
                "unit": "seconds",
                "startValue": 0.0,
                "endValue": sum(weights),
                "samples": samples,
                "weights": weights,
            }
        ],
    }
