"""The CPU caches' sizes, from sysfs (``/sys/devices/system/cpu/cpu0/cache``)."""

from __future__ import annotations

from pathlib import Path

FALLBACK_LLC_BYTES = 32 * 2**20
"""Assumed last-level cache when the machine reports none (bytes)."""


CACHE_DIR = Path("/sys/devices/system/cpu/cpu0/cache")


def parse_cache_size(text: str) -> int | None:
    """A sysfs cache ``size`` such as ``32768K`` or ``1M`` in bytes, or None."""
    text = text.strip().upper()
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    try:
        if text and text[-1] in units:
            return int(text[:-1]) * units[text[-1]]
        return int(text)
    except ValueError:
        return None


def read_cache_sizes(folder: Path = CACHE_DIR) -> dict[str, int]:
    """This CPU's caches {``L1d``, ``L1i``, ``L2``, ``L3``: bytes} from sysfs ({} if absent)."""
    caches: dict[str, int] = {}
    for index in sorted(folder.glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = parse_cache_size((index / "size").read_text())
        except OSError:
            continue
        if size is None:
            continue
        suffix = {"Data": "d", "Instruction": "i"}.get(kind, "")
        caches[f"L{level}{suffix}"] = size
    return caches
