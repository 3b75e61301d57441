"""Number formatting shared by the CLI table, the exporters and the app (no UI imports)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from overhead_tui.engine.stats import CV_WARN
from overhead_tui.summary.breakdown import Breakdown, CompiledQuantities
from overhead_tui.summary.layers import SHORT_LABELS
from overhead_tui.summary.limits import FactCheck, PrecisionPeak
from overhead_tui.summary.records import ScenarioResult
from overhead_tui.summary.units import (
    fmt_gflops,
    fmt_number,
    fmt_percent,
    fmt_ratio,
)

if TYPE_CHECKING:
    from overhead_tui.analysis.paper import PaperRow
    from overhead_tui.analysis.roofline import RooflinePoint
    from overhead_tui.engine.events import BuildStarted, ProbeStarted
    from overhead_tui.machine.reference import ReferenceMachine


BOUND_NAMES = {"issue": "issue", "fp": "FP", "chain": "chain", "l1": "L1"}
"""An in-core bound's name as the breakdown prints it (``CompiledQuantities.in_core_bound``)."""


def fmt_share_interval(interval: Sequence[float] | None) -> str:
    """A share's interval as ``[12–18 %]`` (percent, no decimals), or "" when absent."""
    if not interval:
        return ""
    low, high = interval[0] * 100, interval[1] * 100
    return f"[{low:.0f}–{high:.0f} %]"


def fmt_share(value: float | None, interval: Sequence[float] | None) -> str:
    """A share and its interval: ``15 % [12–18 %]``; ``15 % `` (a trailing space) without one."""
    return f"{fmt_percent(value)} {fmt_share_interval(interval)}"


def fmt_cost(value: float | None, interval: Sequence[float] | None, below: bool = False) -> str:
    """A unit cost with its interval: ``4.2 [3.9–4.5]``; ``below resolution [0–1.2]`` when its
    probe measured ≤ 0 (never a negative cost)."""
    bounds = (
        f" [{fmt_number(interval[0])}–{fmt_number(interval[1])}]"
        if interval and interval[0] != interval[1]
        else ""
    )
    if below:
        return "below resolution" + bounds
    return fmt_number(value) + bounds


COMPILING_MARKERS = ("numba", "@njit", "@jit", "torch.compile", "cython")
"""Words in a kernel's source that mean its first call compiles something."""


def compiles(result: ScenarioResult) -> bool:
    """True when the rung compiles code: a build (C) or a JIT in its source (numba, torch)."""
    source = result.kernel_source or ""
    return bool(result.build) or any(m in source for m in COMPILING_MARKERS)


def first_call_label(result: ScenarioResult) -> str:
    """The label of ``compile_s``: "JIT compile" only where the first call compiles (numba,
    torch); a C rung was built in its set-up, before the first call."""
    if result.build:
        return "first call − median (C built in set-up)"
    if compiles(result):
        return "JIT compile (first call − median)"
    return "first call − median (nothing compiled)"


def samples_label(result: ScenarioResult) -> str:
    """How many samples were timed, and in how many worker processes when more than one."""
    processes = result.sample_processes
    where = f" from {processes} worker processes" if processes > 1 else ""
    return f"{len(result.samples_s)} samples{where}"


def unstable_explained(result: ScenarioResult) -> str | None:
    """What an unsteady timing means for a rung's explained share (None when steady): its CV
    at or above ``engine.stats.CV_WARN`` (pyperf's 10 %)."""
    if result.cv is None or result.cv < CV_WARN:
        return None
    return (
        f"timing unstable (CV {fmt_percent(result.cv)}, ≥ {fmt_percent(CV_WARN)}): the explained "
        "share moves with the time; read its interval, not the point"
    )


def status_text(result: ScenarioResult) -> str:
    """The status word, with ``!`` appended when the result carries stability warnings."""
    return result.status + (" !" if result.status == "ok" and result.warnings else "")


def roofline_row(p: RooflinePoint) -> tuple[str, ...]:
    """A roofline point's cells: #, scenario, n, flop/B, GFLOP/s, attainable, of attainable,
    roof."""
    return (
        str(p.rung),
        p.name,
        str(p.n),
        fmt_number(p.intensity),
        fmt_gflops(p.gflops),
        fmt_gflops(p.attainable),
        fmt_percent(p.of_attainable),
        p.bound or "—",
    )


def paper_row(r: PaperRow) -> tuple[str, ...]:
    """A step of the published ladder beside our rung: #, their step, their speedup, their
    GFLOP/s, our rung, our speedup (or its status), our GFLOP/s."""
    return (
        str(r.version),
        r.implementation,
        fmt_ratio(r.paper_speedup),
        fmt_gflops(r.paper_gflops),
        r.our_rung,
        fmt_ratio(r.our_speedup) if r.our_speedup else r.our_status,
        fmt_gflops(r.our_gflops),
    )


def aligned_lines(rows: Sequence[Sequence[str]], left: Collection[int] = ()) -> list[str]:
    """Rows of cells (a header first, if any) as plain-text lines: each column as wide as its
    widest cell, two spaces apart, right-aligned but for the column indexes in ``left``
    (names and words); trailing spaces are cut."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            cell.ljust(width) if i in left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ]


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown (GitHub) table: the header, its rule and a line per row of cells.

    A column whose name ends in ``:`` is right-aligned (numbers); the colon is not shown.
    """
    names = [h.removesuffix(":") for h in header]
    rule = ["---:" if h.endswith(":") else "---" for h in header]
    return [
        "| " + " | ".join(names) + " |",
        "|" + "|".join(rule) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


@cache
def probe_progress(probe: ProbeStarted) -> str:
    """What the run does while it measures probes: which, how many remain, time left
    (short: it shares the status line with the progress bar at 80 columns)."""
    remaining = probe.remaining_s
    left = f", ~{remaining:.0f} s left" if remaining is not None else ""
    return f"probe {probe.index + 1}/{probe.total} {probe.name}{left}"


def build_progress(build: BuildStarted) -> str:
    """What the run does while it builds the modules it compiles, before anything is timed:
    which, how many, how many at once (short, as :func:`probe_progress`)."""
    return f"preparing {build.name} ({build.index + 1}/{build.total}, {build.jobs} at a time)"


BUILDING_NOTE = (
    "preparing the modules the run compiles (each built once per machine, then loaded from "
    "the cache)"
)
"""What a run does before it times anything (the CLI's first line of it, the app's note): a
warm run finds every module cached, a cold one builds them."""


def machine_line(summary_machine: object) -> str:
    """One line describing the machine: CPU, cores, Python, numpy and BLAS with its threads."""
    m = summary_machine
    blas = getattr(m, "blas", None)
    blas_text = "BLAS unknown"
    if blas is not None and blas.library:
        blas_text = f"{blas.library} {blas.version or ''} {blas.architecture or ''}".strip()
        blas_text += f", {blas.threads} threads"
    python = getattr(m, "python", None)
    py = f"{python.implementation} {python.version}" if python else "Python"
    return (
        f"{getattr(m, 'cpu_model', '?')} · {getattr(m, 'effective_cpus', 0)}/"
        f"{getattr(m, 'logical_cpus', 0)} CPUs · {py} · numpy {getattr(m, 'numpy_version', '?')}"
        f" · {blas_text}"
    )


FACT_CHECK_HEADER = ("fact", "used", "method 1", "method 2", "verdict")
FACT_LABELS = {"clock": "scalar clock"}
"""A fact's name where its key alone would mislead: the clock check's chains run scalar
integer code, and the FMA peaks use the (lower) clock under FMA load where it was measured."""


PRECISION_HEADER = ("family", "one core", "all cores", "per cycle", "expected", "ratio", "source")
"""Columns of :func:`precision_rows`."""


def precision_rows(peaks: Sequence[PrecisionPeak]) -> list[tuple[str, ...]]:
    """One row per lower-precision family: its one-core and all-cores rate (GFLOP/s or GOP/s
    as its unit says), operations per cycle and core, what it should do, their ratio and the
    source of the expectation."""
    rows: list[tuple[str, ...]] = []
    for p in peaks:
        unit = "GFLOP/s" if p.unit == "FLOP" else "GOP/s"
        rows.append(
            (
                p.family,
                f"{fmt_number(p.one_core)} {unit}",
                f"{fmt_number(p.all_cores)} {unit}",
                f"{fmt_number(p.per_cycle)} {p.unit}",
                f"{fmt_number(p.expected_per_cycle)} {p.unit}" if p.expected_per_cycle else "—",
                f"{p.ratio:.2f}" if p.ratio else "—",
                p.expected_source,
            )
        )
    return rows


CLAIM_LABELS = {"fp64_gflops": "FP64", "fp32_gflops": "FP32", "fp16_amx_gflops": "FP16 AMX"}
"""The published peaks compared per core and cycle, and their names."""


def per_core_claims(machines: Sequence[ReferenceMachine]) -> list[str]:
    """ "Intel Xeon 6980P: FP16 AMX 1,023 FLOP/cycle/core (419,000 GFLOP/s ÷ 128 cores ÷
    3.2 GHz)" for every published peak whose entry gives its cores and clock."""
    lines = []
    for m in machines:
        for key, label in CLAIM_LABELS.items():
            per = m.per_core_per_cycle(key)
            if per is not None:
                peak = fmt_number(m.figure(key))
                lines.append(
                    f"{m.name}: {label} {fmt_number(per)} FLOP/cycle/core ({peak} GFLOP/s ÷ "
                    f"{fmt_number(m.cores)} cores ÷ {fmt_number(m.clock_ghz)} GHz)"
                )
    return lines


def vector_clock_text(vector: float, scalar: float, width_bits: int | None) -> str:
    """The clock under FMA load beside the scalar one timed at the same moment, in words
    (GHz): "under 512-bit FMA load 3.51 GHz, 7 % below (the core's frequency licence for such
    code); theoretical peaks use it"."""
    gap = 1 - vector / scalar
    width = f"{width_bits}-bit " if width_bits else ""
    why = (
        f", {gap:.0%} below (the core's frequency licence for such code)"
        if gap >= 0.02
        else " (no lower licence for such code)"
    )
    return f"under {width}FMA load {fmt_number(vector)} GHz{why}; theoretical peaks use it"


def fact_check_rows(checks: Sequence[FactCheck]) -> list[tuple[str, ...]]:
    """One row per machine fact checked two ways: (fact, the figure used with its unit,
    method 1 = value, method 2 = value, verdict)."""
    rows: list[tuple[str, ...]] = []
    for check in checks:
        verdict = {True: "agree", False: "DISAGREE", None: "unchecked"}[check.agree]
        rows.append(
            (
                FACT_LABELS.get(check.fact, check.fact.replace("_", " ")),
                f"{fmt_number(check.used)} {check.unit}",
                f"{fmt_number(check.first)} ({check.first_method})",
                f"{fmt_number(check.second)} ({check.second_method})",
                verdict,
            )
        )
    return rows


FITTED_NOTE = (
    "(fit): a unit cost fitted by least squares over ten loops of the rungs' shape (probe "
    "loop_mix), not measured one event at a time"
)
"""The footnote of a breakdown with rows priced at ``loop_mix`` costs (their units end in
``analysis.attribution.FITTED_MARK``)."""


def compiled_text(q: CompiledQuantities) -> list[str]:
    """A compiled rung's measured quantities in two lines (none for a BLAS rung's), e.g.
    "its hot loop per FMA: 1.5 instructions, 0.25 FP (256-bit), 24 B to/from L1" and
    "in-core ns/FMA: issue 0.074, FP 0.035, chain 0 (issue binds); in L1 (n=40) 0.131 ns/FMA"."""
    if q.instructions_per_fma is None:  # a library rung: no code of its own was read
        return [f"its {k} {v}" for k, v in q.methods.items()]
    width = f"{q.vector_width_bits}-bit" if q.vector_width_bits else "scalar"
    lines = [
        f"its hot loop per FMA: {fmt_number(q.instructions_per_fma)} instructions, "
        f"{fmt_number(q.fp_instructions_per_fma)} FP ({width}), "
        f"{fmt_number(q.l1_bytes_per_fma)} B to/from L1 (read from its own assembly)"
        + (
            f"; callgrind: {fmt_number(q.callgrind_instructions_per_fma)} instructions per FMA "
            f"over a whole call at n={q.callgrind_n}"
            if q.callgrind_instructions_per_fma is not None
            else ""
        )
    ]
    bounds = f"in-core ns/FMA: issue {fmt_number(q.issue_ns)}, FP {fmt_number(q.fp_ns)}"
    if q.chain_ns is not None:
        bounds += f", chain {fmt_number(q.chain_ns)}"
    if q.l1_ns is not None:
        bounds += f", L1 {fmt_number(q.l1_ns)}"
    if q.shuffle_ns is not None:
        bounds += f", FP + shuffles {fmt_number(q.shuffle_ns)}"
    bounds += f" ({BOUND_NAMES.get(q.in_core_bound, q.in_core_bound)} binds)"
    if q.resident_n is not None:  # not L1-resident where the L1 refills page aliases
        where = "on copies of A and B on one physical page" if q.memory_note else (
            "with A and B resident in L1")  # fmt: skip
        bounds += f"; {where} {fmt_number(q.resident_ns)} ns/FMA"
    if q.loop_entries_per_fma:
        bounds += (
            f"; its hot loop entered once per {fmt_number(1 / q.loop_entries_per_fma)} FMAs "
            f"(gcov, n={q.loop_nest_n})"
        )
    if q.placement_ns is not None:
        bounds += f"; placement of A and B {fmt_number(q.placement_ns)} ns/FMA"
    lines.append(bounds)
    if q.memory_note:
        lines.append(f"memory hierarchy: {q.memory_note}")
    return lines


def not_closing_text(b: Breakdown) -> str:
    """What a breakdown outside its closure range says: the profiles' shares are primary
    (perf's, when it profiled the rung), and why the model's are not."""
    low, high = b.closure or (0.0, 0.0)
    text = (
        f"! the model does not close on this rung: it explains {fmt_percent(b.explained)} of "
        f"the measured time, outside {low:.0%}–{high:.0%}; the profiles' shares are the primary "
        "numbers here"
    )
    perf = b.agreement.layers if b.agreement else {}
    shares = [(k, e.perf) for k, e in perf.items() if e.perf is not None]
    if shares:
        said = ", ".join(
            f"{SHORT_LABELS.get(k, k)} {fmt_percent(v)}"
            for k, v in sorted(shares, key=lambda x: -x[1])
        )
        return f"{text} (perf: {said})"
    return f"{text} (press p to profile the rung)"
