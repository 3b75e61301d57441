"""Reference hardware people quote (``data/reference_hardware.toml``), against our rungs."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any

PEAK_FIELDS = ("fp64_gflops", "fp32_gflops", "fp16_tensor_gflops", "fp16_amx_gflops")
"""Peak fields a machine may give (GFLOP/s); ``bandwidth_gbs`` is GB/s."""


class ReferenceError(Exception):
    """The reference file is malformed (the message names the entry and the problem)."""


def load_reference() -> list[dict[str, Any]]:
    """The reference machines, checked: each has a name, a kind, a source and a figure.

    Raises:
        ReferenceError: an entry misses a required field or has a non-positive figure.
    """
    text = (
        resources.files("overhead_tui").joinpath("data/reference_hardware.toml").read_text("utf-8")
    )
    machines = tomllib.loads(text).get("machines", [])
    for i, machine in enumerate(machines):
        for key in ("name", "kind", "source"):
            if not isinstance(machine.get(key), str) or not machine[key]:
                raise ReferenceError(f"machines[{i}]: missing {key}")
        figures = [k for k in (*PEAK_FIELDS, "bandwidth_gbs") if k in machine]
        if not figures or any(float(machine[k]) <= 0 for k in figures):
            raise ReferenceError(f"machines[{i}] ({machine['name']}): needs positive figures")
    return machines


def times_below(gflops: float, machine: dict[str, Any], dtype: str) -> float | None:
    """How many times a rung's GFLOP/s is below a machine's peak of the same precision."""
    key = "fp64_gflops" if dtype == "float64" else "fp32_gflops"
    peak = machine.get(key)
    return float(peak) / gflops if peak and gflops > 0 else None
