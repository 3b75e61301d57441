"""How busy the machine may be before a measurement taken on it is flagged."""

from __future__ import annotations

OTHERS_WARN = 0.15
"""Share of all CPUs used by other processes above which a result or a probe is flagged (our
choice: 15 %, a third of one core on a 2-core machine; multi-threaded rungs lose a thread)."""
