"""Exact instruction counts on other CPython versions (3.12 and 3.13 count with
``sys.monitoring``, 3.11 with ``sys.settrace``): each runs the counter in a subprocess on a
pyenv interpreter, skipped with the reason when that version is not installed."""

from __future__ import annotations

import json
import subprocess

import pytest

from overhead_tui.engine.spawn import worker_env
from overhead_tui.errors import UsageError
from overhead_tui.interpreters.resolve import resolve_python

SCRIPT = r"""
import dis, json, sys
from itertools import repeat
from overhead_tui.worker.counting.opcodes import count_events

def loop(n, x, z):
    y = None
    for _ in repeat(None, n):
        y = x * z
    return y

def accumulate(n, x, z):
    s = 0.0
    for _ in repeat(None, n):
        s += x * z
    return s

def body(fn):
    ops = [i.opname for i in dis.get_instructions(fn) if i.opname != "CACHE"]
    start = ops.index("FOR_ITER")
    end = max(i for i, op in enumerate(ops) if op.startswith("JUMP_BACKWARD"))
    return ops[start : end + 1]

out = {"version": list(sys.version_info[:2])}
for fn in (loop, accumulate):
    small, large = count_events(fn, (1000, 1.5, 2.5)), count_events(fn, (3000, 1.5, 2.5))
    base = {
        k: (large.by_base_opcode.get(k, 0) - small.by_base_opcode.get(k, 0)) / 2000
        for k in set(large.by_base_opcode) | set(small.by_base_opcode)
    }
    out[fn.__name__] = {
        "body": body(fn),
        "bytecodes": (large.bytecodes - small.bytecodes) / 2000,
        "dispatches": (large.dispatches - small.dispatches) / 2000,
        "floats": (large.floats - small.floats) / 2000,
        "base": {k: v for k, v in base.items() if v},
        "again": count_events(fn, (1000, 1.5, 2.5)).bytecodes == small.bytecodes,
    }
print(json.dumps(out))
"""


def _counts(version: str) -> dict:
    counts = run_under(version, SCRIPT)
    assert counts["version"] == [int(x) for x in version.split(".")]
    return counts


def run_under(version: str, script: str) -> dict:
    """The JSON the last line of ``script`` prints, run by CPython ``version`` in a worker's
    environment (skipped where that version is not installed)."""
    try:
        python = resolve_python(version)
    except UsageError as exc:
        pytest.skip(f"CPython {version} is not installed here ({exc})")
    proc = subprocess.run(
        [python, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=worker_env(),
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _body_counts(body: list[str]) -> dict[str, float]:
    counts: dict[str, float] = {}
    for op in body:
        op = "JUMP_BACKWARD" if op.startswith("JUMP_BACKWARD") else op
        counts[op] = counts.get(op, 0) + 1
    return counts


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_counts_per_trip_are_exactly_the_loop_body(version):
    counts = _counts(version)
    for name in ("loop", "accumulate"):
        c = counts[name]
        assert c["again"], "the same call counted twice gives the same count"
        assert c["bytecodes"] == len(c["body"])
        assert c["base"] == _body_counts(c["body"])
    # y = x * z: one float per trip on every version
    assert counts["loop"]["floats"] == 1
    # s += x * z: 3.12+ writes the sum into the product's float (a temporary) instead
    assert counts["accumulate"]["floats"] == (2 if version == "3.11" else 1)


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_dispatches_follow_each_versions_superinstructions(version):
    c = _counts(version)["loop"]
    # FOR_ITER STORE_FAST _ LOAD_FAST x LOAD_FAST z BINARY_OP STORE_FAST y JUMP_BACKWARD:
    # 3.11/3.12 fuse STORE_FAST _ + LOAD_FAST x at run time (7 instructions, 6 dispatches);
    # 3.13 compiles LOAD_FAST_LOAD_FAST x, z (6 instructions, 6 dispatches)
    assert c["dispatches"] == 6
    assert c["bytecodes"] == (6 if version == "3.13" else 7)


def test_same_bytecode_same_base_counts_on_311_and_312():
    old, new = _counts("3.11"), _counts("3.12")
    for name in ("loop", "accumulate"):
        if old[name]["body"] != new[name]["body"]:
            pytest.skip(f"{name} compiles differently on 3.11 and 3.12")
        assert old[name]["base"] == new[name]["base"]
        assert old[name]["dispatches"] == new[name]["dispatches"]
