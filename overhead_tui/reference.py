"""Reference hardware people quote (``data/reference_hardware.toml``), against our rungs."""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from overhead_tui.engine.inputs import DTYPE_ITEMSIZE
from overhead_tui.limits import arithmetic_intensity

PEAK_FIELDS = ("fp64_gflops", "fp32_gflops", "fp16_tensor_gflops", "fp16_amx_gflops")
"""Peak fields a machine may give (GFLOP/s); ``bandwidth_gbs`` is GB/s."""


class ReferenceError(Exception):
    """The reference file is malformed (the message names the entry and the problem)."""


USER_FILE_ENV = "OVERHEAD_TUI_REFERENCE"
"""Environment variable naming an extra reference TOML file (overrides the user config one)."""


def user_reference_path() -> Path:
    """Where a user's own machines go: ``$OVERHEAD_TUI_REFERENCE`` or the user config dir."""
    import platformdirs

    override = os.environ.get(USER_FILE_ENV)
    if override:
        return Path(override)
    config = platformdirs.user_config_path("overhead-tui", appauthor=False)
    return config / "reference_hardware.toml"


KNOWN_KEYS = frozenset({"name", "kind", "source", "note", *PEAK_FIELDS, "bandwidth_gbs"})
"""Keys a ``[[machines]]`` table may have; any other is reported (a misspelt figure)."""


def _check(machines: Any, origin: str) -> list[dict[str, Any]]:
    if not isinstance(machines, list):
        raise ReferenceError(f"{origin}: [[machines]] must be an array of tables")
    for i, machine in enumerate(machines):
        if not isinstance(machine, dict):
            raise ReferenceError(f"{origin}: machines[{i}] is not a table")
        where = f"{origin}: machines[{i}]" + (
            f" ({machine['name']})" if isinstance(machine.get("name"), str) else ""
        )
        unknown = sorted(set(machine) - KNOWN_KEYS)
        if unknown:
            raise ReferenceError(
                f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})"
            )
        for key in ("name", "kind", "source"):
            if not isinstance(machine.get(key), str) or not machine[key]:
                raise ReferenceError(f"{where}: missing {key}")
        figures = [k for k in (*PEAK_FIELDS, "bandwidth_gbs") if k in machine]
        if not figures:
            raise ReferenceError(
                f"{where}: needs at least one of {', '.join(PEAK_FIELDS)}, bandwidth_gbs"
            )
        for key in figures:
            value = machine[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ReferenceError(f"{where}: {key} must be a positive number, got {value!r}")
    return machines


def load_shipped() -> list[dict[str, Any]]:
    """The machines shipped with the package (``data/reference_hardware.toml``).

    Raises:
        ReferenceError: the shipped file is malformed (a packaging bug).
    """
    text = (
        resources.files("overhead_tui").joinpath("data/reference_hardware.toml").read_text("utf-8")
    )
    return _check(tomllib.loads(text).get("machines", []), "reference_hardware.toml")


def load_user_file(path: Path) -> list[dict[str, Any]]:
    """A user's ``[[machines]]`` file.

    Raises:
        ReferenceError: unreadable, not TOML, or an entry with a missing field, an unknown key
            or a non-positive figure (the message names the file, the entry and the field).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReferenceError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return _check(tomllib.loads(text).get("machines", []), str(path))
    except tomllib.TOMLDecodeError as exc:
        raise ReferenceError(f"{path}: not valid TOML ({exc})") from None


def load_reference(user_file: Path | None = None) -> list[dict[str, Any]]:
    """The reference machines: the shipped file, then the user's (same name → replaced).

    Args:
        user_file: an extra TOML file of ``[[machines]]`` (default: ``$OVERHEAD_TUI_REFERENCE``
            or, if that is unset, the user config file, which may be absent).

    Raises:
        ReferenceError: either file is malformed, or ``user_file`` / the file named by
            ``$OVERHEAD_TUI_REFERENCE`` does not exist.
    """
    machines = load_shipped()
    path = user_file or user_reference_path()
    optional = user_file is None and not os.environ.get(USER_FILE_ENV)
    if optional and not path.exists():
        return machines
    if not path.exists():
        named = "" if user_file else f"${USER_FILE_ENV} names "
        raise ReferenceError(f"{named}{path}, which does not exist")
    extra = load_user_file(path)
    names = {m["name"] for m in extra}
    return [m for m in machines if m["name"] not in names] + extra


def reference_machines() -> tuple[list[dict[str, Any]], str | None]:
    """(machines, problem): like :func:`load_reference`, but a broken user file costs only its
    own entries — the shipped machines are returned with the problem as text."""
    try:
        return load_reference(), None
    except ReferenceError as exc:
        return load_shipped(), f"{exc} — showing the shipped machines only"


def peak_of(machine: dict[str, Any], dtype: str) -> float | None:
    """A machine's vendor peak at the precision of ``dtype`` (GFLOP/s), if it gives one."""
    value = machine.get("fp64_gflops" if dtype == "float64" else "fp32_gflops")
    return float(value) if value else None


def machine_ridge_point(machine: dict[str, Any], dtype: str) -> float | None:
    """peak / bandwidth (flops/byte) of a reference machine, or None without both figures."""
    peak, bandwidth = peak_of(machine, dtype), machine.get("bandwidth_gbs")
    return peak / float(bandwidth) if peak and bandwidth else None


def tile_intensity(tile: int, dtype: str) -> float:
    """Arithmetic intensity of one T × T tile step of a tiled matmul (flops/byte).

    2T³ flops per 3T² elements moved (a tile of A, of B and of C), so 2T / (3·itemsize):
    the same formula as an n × n matmul's minimum traffic (``limits.arithmetic_intensity``).

    Raises:
        ValueError: ``tile`` < 1.
    """
    if tile < 1:
        raise ValueError(f"tile size must be at least 1, got {tile}")
    return arithmetic_intensity(tile, dtype)


def smallest_compute_bound_tile(ridge: float, dtype: str) -> int:
    """The smallest T whose tile intensity reaches ``ridge`` (flops/byte): ⌈3·itemsize·ridge/2⌉."""
    return max(1, math.ceil(3 * DTYPE_ITEMSIZE[dtype] * ridge / 2 - 1e-9))


def times_below(gflops: float, machine: dict[str, Any], dtype: str) -> float | None:
    """How many times a rung's GFLOP/s is below a machine's peak of the same precision."""
    peak = peak_of(machine, dtype)
    return peak / gflops if peak and gflops > 0 else None


@dataclass(frozen=True)
class TileRow:
    """One machine in the tile calculator (flops/byte; T in elements)."""

    machine: str
    ridge: float | None
    intensity: float
    compute_bound: bool | None
    """Whether a T × T tile reaches the machine's ridge point (None: no ridge known)."""
    smallest_tile: int | None


def tile_table(
    tile: int, dtype: str, machines: list[dict[str, Any]], own: tuple[str, float | None]
) -> list[TileRow]:
    """The tile calculator: is a T × T tiled matmul compute-bound on each machine?

    Args:
        tile: T, the tile's order (elements).
        dtype: float64 or float32 (itemsize and the precision of the peaks).
        machines: reference machines (:func:`load_reference`).
        own: (label, ridge point in flops/byte) of this machine from its measured limits.

    Raises:
        ValueError: ``tile`` < 1.
    """
    intensity = tile_intensity(tile, dtype)
    rows = []
    for name, ridge in [own, *((m["name"], machine_ridge_point(m, dtype)) for m in machines)]:
        rows.append(
            TileRow(
                name,
                ridge,
                intensity,
                None if ridge is None else intensity >= ridge,
                None if ridge is None else smallest_compute_bound_tile(ridge, dtype),
            )
        )
    return rows
