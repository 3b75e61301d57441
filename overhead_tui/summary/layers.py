"""The standard overhead layers: the vocabulary of the field (ARCHITECTURE.md: adding one).

A *layer* is one source of cost in a scenario's run time.  Scenarios declare the layers they
still carry (``LAYERS``) and the ones they drop relative to the rung before (``REMOVES``);
discovery rejects any name not listed here.
"""

from __future__ import annotations

LAYER_LABELS: dict[str, str] = {
    "interpreter_dispatch": "bytecode dispatch",
    "boxing": "boxing (float objects, refcounts)",
    "dynamic_dispatch": "dynamic type dispatch",
    "container_access": "container access (subscripts)",
    "call_overhead": "call overhead",
    "library_layers": "library call layers",
    "scalar_compute": "scalar compute",
    "simd_compute": "SIMD compute",
    "dense_kernel": "dense kernel",
    "memory": "memory bandwidth / cache",
    "parallel": "threads and synchronisation",
    "other": "unexplained",
}
"""Layer name -> short human-readable label, in the order the UI lists them.  ``other`` is no
layer: what the model does not explain (drawn in its own neutral colour)."""

LAYERS: tuple[str, ...] = tuple(LAYER_LABELS)
"""All standard layer names."""


SHORT_LABELS: dict[str, str] = {
    "interpreter_dispatch": "dispatch",
    "boxing": "boxing",
    "dynamic_dispatch": "type dispatch",
    "container_access": "subscripts",
    "call_overhead": "calls",
    "library_layers": "library",
    "scalar_compute": "scalar",
    "simd_compute": "SIMD",
    "dense_kernel": "dense kernel",
    "memory": "memory",
    "parallel": "threads",
    "other": "unexplained",
}
"""Layer -> one-word label for legends."""


LAYER_LETTERS: dict[str, str] = {
    "interpreter_dispatch": "d",
    "boxing": "b",
    "dynamic_dispatch": "t",
    "container_access": "s",
    "call_overhead": "c",
    "library_layers": "l",
    "scalar_compute": "x",
    "simd_compute": "v",
    "dense_kernel": "k",
    "memory": "m",
    "parallel": "p",
    "other": "o",
}
"""Layer -> the letter that stands for it in bars and legends (readable without colour)."""


def layer_label(name: str) -> str:
    """Return the readable label of a layer name (the name itself if it is not standard)."""
    return LAYER_LABELS.get(name, name)
