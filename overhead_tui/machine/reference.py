"""Reference hardware people quote (``data/reference_hardware.toml``), against our rungs."""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from overhead_tui.machine.limits import arithmetic_intensity
from overhead_tui.summary.vocabulary import DTYPE_ITEMSIZE

PEAK_FIELDS = ("fp64_gflops", "fp32_gflops", "fp16_tensor_gflops", "fp16_amx_gflops")
"""Peak fields a machine may give (GFLOP/s); ``bandwidth_gbs`` is GB/s."""


class ReferenceError(Exception):
    """The reference file is malformed (the message names the entry and the problem)."""


@dataclass(frozen=True)
class ReferenceMachine:
    """One ``[[machines]]`` table: a machine's published figures (GFLOP/s, GB/s)."""

    name: str
    kind: str
    """``cpu``, ``gpu``, …"""
    source: str
    """Where the figures come from (a datasheet)."""
    note: str | None = None
    fp64_gflops: float | None = None
    """Published float64 peak of the whole machine (GFLOP/s)."""
    fp32_gflops: float | None = None
    """Published float32 peak (GFLOP/s)."""
    fp16_tensor_gflops: float | None = None
    """A GPU's published FP16 tensor-core peak (GFLOP/s)."""
    fp16_amx_gflops: float | None = None
    """A CPU's published FP16/BF16 matrix-engine peak (AMX, GFLOP/s)."""
    bandwidth_gbs: float | None = None
    """Published memory bandwidth (GB/s)."""
    cores: float | None = None
    """Cores the peak figures count (a CPU's), for :meth:`per_core_per_cycle`."""
    clock_ghz: float | None = None
    """The clock the peak figures assume (GHz)."""

    def figure(self, name: str) -> float | None:
        """The figure ``name`` (one of :data:`PEAK_FIELDS` or ``bandwidth_gbs``), or None."""
        value = getattr(self, name)
        return float(value) if value else None

    def per_core_per_cycle(self, name: str) -> float | None:
        """The peak ``name`` per core and cycle (figure ÷ cores ÷ clock: FLOP), where the
        entry gives its cores and clock (Xeon 6980P: 419,000 / 128 / 3.2 = 1,023)."""
        figure = self.figure(name)
        if figure is None or not self.cores or not self.clock_ghz:
            return None
        return figure / self.cores / self.clock_ghz


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


FIGURE_RANGE = (1e-3, 1e12)
"""What a figure may be (GFLOP/s, GB/s, cores, GHz): a zettaFLOP machine or a 1 MB/s link are
typos, and their ratio (the ridge point) must stay a finite number."""
KNOWN_KEYS = frozenset(
    {"name", "kind", "source", "note", *PEAK_FIELDS, "bandwidth_gbs", "cores", "clock_ghz"}
)
"""Keys a ``[[machines]]`` table may have; any other is reported (a misspelt figure)."""


def _entry_problem(machine: object, where: str) -> str | None:
    """What is wrong with one ``[[machines]]`` table, or None."""
    if not isinstance(machine, dict):
        return f"{where} is not a table"
    if isinstance(machine.get("name"), str):
        where += f" ({machine['name']})"
    unknown = sorted(set(machine) - KNOWN_KEYS)
    if unknown:
        return f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})"
    for key in ("name", "kind", "source"):
        if not isinstance(machine.get(key), str) or not machine[key]:
            return f"{where}: missing {key}"
    figures = [k for k in (*PEAK_FIELDS, "bandwidth_gbs") if k in machine]
    if not figures:
        return f"{where}: needs at least one of {', '.join(PEAK_FIELDS)}, bandwidth_gbs"
    for key in [*figures, *(k for k in ("cores", "clock_ghz") if k in machine)]:
        value = machine[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or not FIGURE_RANGE[0] <= value <= FIGURE_RANGE[1]
        ):
            low, high = FIGURE_RANGE
            return (
                f"{where}: {key} must be a positive finite number ({low:g} to {high:g}), "
                f"got {value!r}"
            )
    return None


def _check(machines: object, origin: str) -> tuple[list[ReferenceMachine], list[str]]:
    """(the valid entries, a problem per invalid one) of a parsed ``machines`` array."""
    if not isinstance(machines, list):
        return [], [f"{origin}: [[machines]] must be an array of tables"]
    valid, problems = [], []
    for i, machine in enumerate(machines):
        problem = _entry_problem(machine, f"{origin}: machines[{i}]")
        if problem:
            problems.append(problem)
        else:
            valid.append(ReferenceMachine(**machine))
    return valid, problems


def load_shipped() -> list[ReferenceMachine]:
    """The machines shipped with the package (``data/reference_hardware.toml``).

    Raises:
        ReferenceError: the shipped file is malformed (a packaging bug).
    """
    text = (
        resources.files("overhead_tui").joinpath("data/reference_hardware.toml").read_text("utf-8")
    )
    machines, problems = _check(tomllib.loads(text).get("machines", []), "reference_hardware.toml")
    if problems:
        raise ReferenceError("; ".join(problems))
    return machines


def read_user_file(path: Path) -> tuple[list[ReferenceMachine], list[str]]:
    """(valid entries, problems) of a user's ``[[machines]]`` file; never raises.

    Every bad entry is named (file, index, name, field); the good ones are kept. An unreadable
    or non-TOML file gives no entries and one problem.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{path}: {getattr(exc, 'strerror', None) or exc}"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [], [f"{path}: not valid TOML ({exc})"]
    return _check(data.get("machines", []), str(path))


def _user_path(user_file: Path | None) -> tuple[Path | None, str | None]:
    """(the user file to read or None, why a named one is missing)."""
    path = user_file or user_reference_path()
    if path.exists():
        return path, None
    if user_file is None and not os.environ.get(USER_FILE_ENV):
        return None, None  # the default config file is optional
    named = "" if user_file else f"${USER_FILE_ENV} names "
    return None, f"{named}{path}, which does not exist"


def _merge(
    shipped: list[ReferenceMachine], extra: list[ReferenceMachine]
) -> list[ReferenceMachine]:
    names = {m.name for m in extra}
    return [m for m in shipped if m.name not in names] + extra


def load_reference(user_file: Path | None = None) -> list[ReferenceMachine]:
    """The reference machines: the shipped file, then the user's (same name → replaced).

    Args:
        user_file: an extra TOML file of ``[[machines]]`` (default: ``$OVERHEAD_TUI_REFERENCE``
            or, if that is unset, the user config file, which may be absent).

    Raises:
        ReferenceError: either file is malformed (every bad entry is named), or
            ``user_file`` / the file named by ``$OVERHEAD_TUI_REFERENCE`` does not exist.
    """
    machines, problems = reference_machines_and_problems(user_file)
    if problems:
        raise ReferenceError("; ".join(problems))
    return machines


def reference_machines_and_problems(
    user_file: Path | None = None,
) -> tuple[list[ReferenceMachine], list[str]]:
    """(shipped machines + the user's valid ones, the user file's problems)."""
    shipped = load_shipped()
    path, missing = _user_path(user_file)
    if path is None:
        return shipped, [missing] if missing else []
    extra, problems = read_user_file(path)
    return _merge(shipped, extra), problems


def reference_machines() -> tuple[list[ReferenceMachine], str | None]:
    """(machines, problem): a broken user file costs only its bad entries, which are named."""
    machines, problems = reference_machines_and_problems()
    if not problems:
        return machines, None
    return machines, "; ".join(problems) + " — those entries are left out"


def peak_of(machine: ReferenceMachine, dtype: str) -> float | None:
    """A machine's vendor peak at the precision of ``dtype`` (GFLOP/s), if it gives one."""
    return next(
        (f for f in map(machine.figure, PEAK_OF_DTYPE.get(dtype, ())) if f is not None), None
    )


PEAK_OF_DTYPE: dict[str, tuple[str, ...]] = {
    "float64": ("fp64_gflops",),
    "float32": ("fp32_gflops",),
    "bfloat16": ("fp16_amx_gflops", "fp16_tensor_gflops"),
    "float16": ("fp16_amx_gflops", "fp16_tensor_gflops"),
}
"""The published figures of each dtype's precision, the first one given: bfloat16 and float16
against a 16-bit matrix engine's peak (a CPU's AMX, which does both at one rate: the Xeon
6980P's 419,000 GFLOP/s; a GPU's tensor cores), never against FP32 (which divided vendor FP32
peaks by our bfloat16 one); int8 has no published figure here."""


def machine_ridge_point(machine: ReferenceMachine, dtype: str) -> float | None:
    """peak / bandwidth (flops/byte) of a reference machine, or None without both figures."""
    peak, bandwidth = peak_of(machine, dtype), machine.figure("bandwidth_gbs")
    return peak / bandwidth if peak and bandwidth else None


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


def times_below(gflops: float, machine: ReferenceMachine, dtype: str) -> float | None:
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
    tile: int, dtype: str, machines: list[ReferenceMachine], own: tuple[str, float | None]
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
    for name, ridge in [own, *((m.name, machine_ridge_point(m, dtype)) for m in machines)]:
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
