"""The worker protocol's codec: every message and the SPEC survive JSON, bad lines are named."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from overhead_tui.engine.run_log import parse_message_line
from overhead_tui.engine.spawn import worker_env
from overhead_tui.plugins.probes import discover_probes
from overhead_tui.plugins.scenarios import discover
from overhead_tui.summary import codec as summary_codec
from overhead_tui.summary import measured
from overhead_tui.summary import probes as summary_probes
from overhead_tui.worker import protocol
from overhead_tui.worker.protocol import (
    MESSAGES,
    BlasLibrary,
    BlasReport,
    BytecodeLine,
    Message,
    ProtocolError,
    PythonReport,
    WorkerTask,
    decode,
    encode,
    worker_task,
)

BLAS = BlasReport(
    "openblas",
    "0.3.27",
    "Haswell",
    2,
    libraries=(BlasLibrary("openblas", "0.3.27", "Haswell", 2, "pthreads", "/lib/x.so"),),
)

EXAMPLES: dict[str, Message] = {
    "started": protocol.Started(41, "python_naive", 64, "float64"),
    "environment": protocol.Environment(
        PythonReport("CPython", "3.12.1", "/usr/bin/python3"), "2.0.0", BLAS, None, None
    ),
    "build": protocol.Build(measured.BuildInfo("gcc", flags=["-O2"], vectorization=[])),
    "compiled": protocol.Compiled(0.25),
    "generated": protocol.Generated(measured.GeneratedCode("cc -S", 8, 8, 256, 8.0, True)),
    "validated": protocol.Validated("first", False, None, 1e-12, "element (0, 0) is off"),
    "calibrated": protocol.Calibrated(16),
    "warmup": protocol.Warmup(0.011),
    "reference": protocol.Reference((3.1, 3.2, 3.0), "before"),
    "timing_started": protocol.TimingStarted(),
    "sample": protocol.Sample(2, 0.0101, 1.02),
    "timing_ended": protocol.TimingEnded(),
    "resident": protocol.Resident(measured.ResidentTiming(512, 4096, [1.3e-10, 1.4e-10])),
    "counted": protocol.Counted(
        (4, 6, 8, 10),
        measured.EventsPerFma(
            bytecodes=12.5, n=64, counted_sizes=[4, 6, 8, 10], by_opcode={"X": 1.0}
        ),
        (BytecodeLine("kernel", 12, "LOAD_FAST", "a", 2.0),),
        10,
        "sys.monitoring",
    ),
    "done": protocol.Done("omp", BLAS, 1.5),
    "error": protocol.Error("missing_dependency", "No module named 'numba'", "Traceback", "numba"),
    "profiled": protocol.Profiled(1200, 3.0, 0.0025),
    "probe": protocol.Probe(2.5, 0.01, (2.4, 2.5, 2.6), {"store_ns": 1.25, "note": "x"}),
}
"""One message of every kind."""

KEYS = {
    "started": {"pid", "name", "n", "dtype"},
    "environment": {"python", "numpy_version", "blas", "numba_version", "numba_threads"},
    "build": {"info"},
    "compiled": {"first_call_s"},
    "generated": {"code"},
    "validated": {"phase", "ok", "max_abs_error", "tolerance", "reason"},
    "calibrated": {"loops"},
    "warmup": {"value_s"},
    "reference": {"dispatch_ns", "phase"},
    "timing_started": set(),
    "sample": {"index", "value_s", "cores"},
    "timing_ended": set(),
    "resident": {"timing"},
    "counted": {"sizes", "per_fma", "bytecode", "bytecode_n", "method"},
    "done": {"numba_threading_layer", "blas", "cpu_s"},
    "error": {"cause", "message", "traceback", "module"},
    "profiled": {"calls", "seconds", "per_call_s"},
    "probe": {"value", "spread", "samples", "details"},
}
"""The keys each kind's line had when the worker wrote dicts (log.jsonl keeps them)."""


def test_every_kind_has_an_example_and_its_old_keys():
    assert set(EXAMPLES) == set(MESSAGES) == set(KEYS) == set(get_args(protocol.MessageKind))
    for kind, message in EXAMPLES.items():
        line = json.loads(encode(message))
        assert line["kind"] == kind
        assert set(line) - {"kind"} == KEYS[kind], kind


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_each_message_round_trips(kind):
    message = EXAMPLES[kind]
    assert decode(encode(message)) == message
    assert decode(encode(message).encode()) == message  # the runner reads bytes


def test_fields_absent_when_none_keep_the_old_lines():
    assert set(json.loads(encode(protocol.Started(7, "dispatch")))) == {"kind", "pid", "name"}
    invalid_first = json.loads(encode(protocol.Done(None, BLAS)))  # no cpu_s: stopped early
    assert "cpu_s" not in invalid_first and invalid_first["numba_threading_layer"] is None
    assert "libraries" not in json.loads(encode(protocol.Done(None, BlasReport("mkl"))))["blas"]


def test_the_blas_lines_keep_every_library_field():
    line = json.loads(encode(EXAMPLES["done"]))
    assert line["blas"]["libraries"] == [
        {
            "library": "openblas",
            "version": "0.3.27",
            "architecture": "Haswell",
            "threads": 2,
            "threading_layer": "pthreads",
            "filepath": "/lib/x.so",
        }
    ]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"not json", "not a JSON line"),
        (b"\xff\xfe", "not a JSON line"),
        (b"[1, 2]", "not a message"),
        (b'{"event": "sample"}', "not a message"),  # no kind
        (b'{"kind": 3}', "not a message"),
        (b'{"kind": "sample", "index": "two", "value_s": 0.1}', "sample.index"),
        (b'{"kind": "sample", "index": 1, "value_s": true}', "sample.value_s"),
        (b'{"kind": "done", "blas": [1]}', "done.blas"),
        (b'{"kind": "counted", "bytecode": [{"offset": "x"}]}', "counted.bytecode[0].offset"),
    ],
)
def test_a_malformed_line_is_a_protocol_error_naming_the_field(line, says):
    with pytest.raises(ProtocolError, match=says.replace("[", r"\[").replace("]", r"\]")):
        decode(line)
    assert parse_message_line(line) is None  # the runner skips it


def test_an_unknown_kind_is_a_protocol_error():
    with pytest.raises(ProtocolError, match="unknown message kind 'teleported'"):
        decode('{"kind": "teleported", "where": "mars"}')
    assert parse_message_line(b'{"kind": "teleported"}') is None


def test_missing_fields_take_defaults_and_unknown_ones_are_ignored():
    assert decode('{"kind": "sample", "index": 3, "value_s": 1, "extra": 0}') == protocol.Sample(
        3, 1.0
    )
    assert decode('{"kind": "error"}') == protocol.Error()


def _scenario(name="python_naive"):
    return next(s for s in discover() if s.name == name)


def test_worker_spec_round_trips_for_every_mode():
    scenario = _scenario()
    probe = discover_probes()[0]
    specs = [
        worker_task("run", scenario, n=64, repeats=5, min_sample_s=0.01, max_size=256, m=3, k=5),
        worker_task("probe", probe, repeats=7, min_sample_s=0.04),
        worker_task("profile", scenario, n=16, duration_s=1.5),
    ]
    for spec in specs:
        assert WorkerTask.from_json(spec.to_json()) == spec
    run, probe_spec, profile = specs
    assert run.path == str(scenario.path) and run.requires == tuple(scenario.requires)
    assert run.parent_pid is not None and probe_spec.parent_pid is not None
    assert profile.parent_pid is None  # under a profiler the worker's parent is the profiler


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"mode": "run", "path": "x.py"}', "missing field name"),
        ('{"mode": "run", "name": "a", "path": "x.py", "sise": 3}', "unknown field"),
        ('{"mode": "run", "name": "a", "path": "x.py", "n": "8"}', "task.n"),
        ('{"mode": "dance", "name": "a", "path": "x.py"}', "task.mode"),
    ],
)
def test_a_bad_spec_is_a_protocol_error(text, says):
    with pytest.raises(ProtocolError, match=says):
        WorkerTask.from_json(text)


def test_a_worker_given_a_bad_spec_reports_an_error_message():
    """Before the protocol, a task without a field died with a KeyError traceback only."""
    proc = subprocess.run(
        [sys.executable, "-m", "overhead_tui.worker.main", '{"mode": "run", "name": "x"}'],
        capture_output=True,
        env=worker_env(),
        timeout=60,
    )
    (message,) = [m for m in map(parse_message_line, proc.stdout.splitlines()) if m is not None]
    assert isinstance(message, protocol.Error) and message.cause == "task"
    assert "missing field path" in message.message and proc.returncode == 2


def test_protocol_imports_only_the_standard_library():
    """The worker imports it under interpreters without the tool's packages: the protocol and
    the package's modules it imports (the summary's records it sends) use the standard
    library alone."""
    own = (protocol, summary_codec, measured, summary_probes)
    for module in own:
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        imported = {
            node.module if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        outside = {m for m in imported if m.split(".")[0] not in sys.stdlib_module_names}
        assert outside <= {"__future__", *(m.__name__ for m in own)}, module.__name__


def test_a_checked_line_takes_no_bool_for_a_number_and_names_list_items():
    with pytest.raises(ProtocolError, match=r"sample\.index"):
        decode('{"kind": "sample", "index": true, "value_s": 0.1}')
    with pytest.raises(ProtocolError, match=r"reference\.dispatch_ns\[1\]"):
        decode('{"kind": "reference", "dispatch_ns": [1.0, "x"], "phase": "before"}')
    assert decode('{"kind": "counted", "sizes": [4]}') == protocol.Counted((4,))


def test_the_summary_records_on_the_line_keep_their_keys():
    """Build and Counted carry the summary's records: the keys the worker's dicts had."""
    info = measured.BuildInfo("cc", "cc 12", ["-O2"], [], "cc -O2 x.c", "m", False, 0.5, [])
    line = json.loads(encode(protocol.Build(info)))["info"]
    assert set(line) == {
        "compiler", "compiler_version", "flags", "link_flags", "command", "module", "cached",
        "build_s", "vectorization",
    }  # fmt: skip
    counts = dict.fromkeys(measured.COUNTERS, 0.5)
    per_fma = measured.EventsPerFma(**counts, n=64, counted_sizes=[4, 6, 8, 10], by_opcode={})
    sent = json.loads(encode(protocol.Counted((4, 6, 8, 10), per_fma)))["per_fma"]
    assert list(sent) == [*measured.COUNTERS, "n", "counted_sizes", "by_opcode"]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"kind": "validated", "phase": "middle", "ok": true}', "'middle' is not one of"),
        ('{"kind": "error", "cause": "gremlins", "message": "x"}', "'gremlins' is not one of"),
    ],
)
def test_a_phase_or_error_kind_outside_its_literal_is_a_protocol_error(line, said):
    """Statuses, phases and error kinds are Literal types: the codec checks the value too."""
    with pytest.raises(ProtocolError, match=said):
        decode(line)
    assert decode('{"kind": "validated", "phase": "last", "ok": true}').phase == "last"
