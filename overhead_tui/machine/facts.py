"""Each machine fact from two independent methods, with a verdict (:class:`FactCheck`).

* ``clock``: the ``clock`` probe's dependent ``imul`` chain (3 cycles a step) against its
  ``add``/``xor`` register chain (2 cycles a step), different execution units; they agree
  within :data:`CLOCK_AGREE`, else the lower is used (the probe's ``verdict``).
* ``fma_flop_per_cycle``: float64 FLOP per cycle of one core, measured (the ``simd_fma``
  probe on one core / the clock under that FMA load, timed beside it in the same process: an
  ``imul`` chain inside an FMA loop; older probes: / the ``clock`` probe) against the table
  (``cpu.MICROARCHITECTURES``: FMA units × lanes of the narrower of the probe's code and the
  units × 2). One FMA unit where the table says two, SMT siblings sharing a core, or a clock
  off by 2× show here.
* ``parallel_cores``: cores that compute side by side, measured (the ``simd_fma`` probe's
  all-cores / one-core rate) against the count (physical cores, capped by the affinity mask
  and cgroup quota). Two vCPUs that are hyperthreads of one core
  measure about 1.

:func:`probe_load_warnings`: doubts about the conditions the probes ran in (other load, a
machine whose speed moved, a machine probe that failed).

:func:`fact_warnings` turns each disagreement into one line for ``machine``, the app's
Machines screen and the summary's ``limit_warnings``.
"""

from __future__ import annotations

from overhead_tui.machine.cpu import CpuModel
from overhead_tui.machine.load import OTHERS_WARN
from overhead_tui.summary.limits import FactCheck
from overhead_tui.summary.probes import Probes, probe_detail, probe_details, probe_value
from overhead_tui.summary.records import RunSummary

CLOCK_AGREE = 0.05
"""The two clock chains may differ by 5 % and agree (``probes/clock.py``'s ``AGREE_WITHIN``)."""
FMA_AGREE = (0.85, 1.10)
"""Measured / table FLOP per cycle inside this range agrees.  Measured on three CPUs with the
ISA-explicit kernels: 0.97–1.00 (Zen 5, quiet), 0.98 (Emerald Rapids, ``fma2.c`` by hand:
31.3 of 32); below 0.85 is a lost FMA unit or a shared core, above 1.10 a clock read low."""
PARALLEL_AGREE = 0.8
"""Measured parallel cores at least 0.8 × the counted ones agree (a busy neighbour on a
shared host costs up to about 15 % here)."""
PARALLEL_ABOVE = 1.15
"""Above 1.15 × the counted cores the measurement is impossible: its one-core run was slowed."""


def clock_check(probes: Probes) -> FactCheck | None:
    """The clock from the ``imul`` chain and the ``add``/``xor`` chain (GHz)."""
    probe = probes.get("clock")
    if probe is None or not probe.value:
        return None
    imul = probe_value(probes, "clock", "imul_ghz")
    add_xor = probe_value(probes, "clock", "add_xor_ghz")
    agree, used = None, float(probe.value)
    if imul and add_xor:
        gap = max(imul, add_xor) / min(imul, add_xor) - 1
        agree = gap <= CLOCK_AGREE
        note = (
            f"agree within {gap:.1%}"
            if agree
            else f"the two chains disagree by {gap:.0%} (imul {imul:.2f} GHz, add/xor "
            f"{add_xor:.2f} GHz): used {used:.2f} GHz, the lower (a chain reads fast only when "
            "the core folds its instructions); re-measure with `overhead-tui probes --refresh`"
        )
    elif imul or add_xor:
        which = "imul" if imul else "add_xor"
        note = (
            f"the clock comes from the {which} chain alone (the other's latency is not "
            "tabulated for this CPU): no second method checked it"
        )
    else:
        note = (
            "the clock comes from one chain only (probes cached before the two-chain clock "
            "probe): re-measure with `overhead-tui probes --refresh`"
        )
    return FactCheck(
        "clock",
        "GHz",
        "imul chain, 3 cycles/step",
        imul,
        "add+xor chain, 2 cycles/step",
        add_xor,
        agree,
        used,
        note,
    )


def expected_flop_per_cycle(cpu: CpuModel, code_width_bits: int, dtype: str = "float64") -> int:
    """FLOP/cycle of one core running FMA code ``code_width_bits`` wide: FMA units × lanes of
    min(code width, unit width) × 2 (narrower code on wider units fills each unit partly)."""
    bits = min(code_width_bits, cpu.fma_width_bits)
    return cpu.fma_units * max(1, bits // (64 if dtype == "float64" else 32)) * 2


def fma_check(cpu: CpuModel | None, probes: Probes, clock: float | None) -> FactCheck | None:
    """float64 FLOP/cycle of one core: the ``simd_fma`` probe / clock against the table."""
    one = probe_value(probes, "simd_fma", "one_core_gflops")
    if cpu is None or one is None:
        return None
    width = probe_value(probes, "simd_fma", "simd_width_bits") or cpu.fma_width_bits
    isa = probe_detail(probes, "simd_fma", "isa") or "?"
    expected = expected_flop_per_cycle(cpu, int(width))
    table = f"table: {cpu.microarchitecture}, {cpu.fma_units} × {cpu.fma_width_bits}-bit FMA"
    same_moment = probe_value(probes, "simd_fma", "flop_per_cycle")
    measured: float | None
    if same_moment is not None:
        measured, method = same_moment, "simd_fma one core / clock under its FMA load"
    else:
        measured = one / clock if clock else None
        method = "simd_fma one core / clock probe"
    agree: bool | None = None
    if isa == "sse":
        note = "the probe ran SSE code (no FMA instructions): not compared with the FMA table"
    elif measured is None:
        note = "no measured clock: not compared"
    else:
        ratio = measured / expected
        agree = FMA_AGREE[0] <= ratio <= FMA_AGREE[1]
        if agree:
            note = f"agree: {ratio:.2f} of the table ({isa} code, {int(width)} bits)"
        elif ratio < FMA_AGREE[0]:
            note = (
                f"one core did {measured:.1f} float64 FLOP/cycle with {isa} code, {ratio:.2f} "
                f"of the table's {expected}: one FMA unit where the table says "
                f"{cpu.fma_units}, SMT siblings sharing the core, a clock read high, or load "
                "while the probe ran"
            )
        else:
            note = (
                f"one core did {measured:.1f} float64 FLOP/cycle, {ratio:.2f} × the table's "
                f"{expected}: the measured clock reads low or the table row is wrong"
            )
    return FactCheck(
        "fma_flop_per_cycle",
        "FLOP/cycle",
        method,
        measured,
        table,
        float(expected),
        agree,
        float(expected),
        note,
    )


def parallel_check(probes: Probes, counted: float | None) -> FactCheck | None:
    """Cores computing side by side: the ``simd_fma`` probe's all / one against the count."""
    measured = probe_value(probes, "simd_fma", "parallel_cores")
    if measured is None or not counted:
        return None
    agree = PARALLEL_AGREE * counted <= measured <= PARALLEL_ABOVE * counted
    if measured > PARALLEL_ABOVE * counted:
        note = (
            f"the {counted:g} counted cores computed like {measured:.2f}, more than there are: "
            "the one-core run was slowed (other load while it ran); re-measure with "
            "`overhead-tui probes --refresh`"
        )
    else:
        note = (
            f"agree: {measured:.2f} of {counted:g}"
            if agree
            else (
                f"the {counted:g} counted cores computed like {measured:.2f} (independent FMA "
                "loops on every CPU at once): other processes busy on the CPUs while it ran, SMT "
                "siblings of fewer cores, or a host that shares them; the all-cores theoretical "
                "peak still counts "
                f"{counted:g}"
            )
        )
    return FactCheck(
        "parallel_cores",
        "cores",
        "physical cores (cpuinfo ∩ affinity ∩ cgroup)",
        float(counted),
        "simd_fma all cores / one core",
        measured,
        agree,
        float(counted),
        note,
    )


def fact_checks(cpu: CpuModel | None, probes: Probes, counted: float | None) -> list[FactCheck]:
    """Every fact check the probes allow (missing probes: that check is left out)."""
    clock = clock_check(probes)
    checks = [
        clock,
        fma_check(cpu, probes, clock.used if clock else None),
        parallel_check(probes, counted),
    ]
    return [c for c in checks if c is not None]


def fact_warnings(checks: list[FactCheck]) -> list[str]:
    """One line per fact whose two methods disagree (or that had only one)."""
    warnings = []
    for check in checks:
        if check.agree is False or (check.fact == "clock" and check.agree is None):
            warnings.append(f"{check.fact.replace('_', ' ')}: {check.note}")
    return warnings


SCALING_WARN = 0.75
"""A dense kernel whose 1 → all threads speed-up is below 0.75 × the FMA loops' is warned
about (Emerald Rapids, 2026-12-01: BLAS 1.28× against two FMA loops' 1.97×)."""


def scaling_warnings(checks: list[FactCheck], summary: RunSummary) -> list[str]:
    """A threaded dense kernel that scales much less than independent FMA loops do: the
    all-cores dense figure is then below what the cores can compute."""
    parallel = next((c.second for c in checks if c.fact == "parallel_cores"), None)
    dense = [
        r for r in summary.scenarios if r.has_speed and r.gflops and "dense_kernel" in r.layers
    ]
    one = max((r.gflops or 0.0 for r in dense if "parallel" not in r.layers), default=None)
    every = max(((r.gflops or 0.0, r.name) for r in dense if "parallel" in r.layers), default=None)
    if not parallel or not one or every is None or parallel < 1.5:
        return []
    scaling = every[0] / one
    if scaling >= SCALING_WARN * parallel:
        return []
    return [
        f"the dense kernel scales {scaling:.2f}× from one thread to all ({every[1]}), while "
        f"independent FMA loops scale {parallel:.2f}× on these cores: the threaded BLAS "
        "loses time to memory, synchronisation or a busy host, so its figure is below what "
        "the cores can compute"
    ]


DISPATCH_RANGE_WARN = 0.15
"""Range of the dispatch probe's per-process values (max / min − 1) above which the machine's
speed is said to have changed while the probes ran.  Measured on 2026-12-01 (2-vCPU Zen 5
VM): 3–8 % in seven ladder runs, quiet or beside a busy CPU, and in two while the host slowed
down; 22 % and 40 % in two other runs on the slowed host (the same Python loops 30–80 %
slower, invisible inside the VM: no steal, no other load), when python_hoisted's
``explained`` read 1.34."""


MACHINE_PROBES = {
    "clock": "the clock and every peak at it",
    "simd_fma": "the SIMD peak, FLOP/cycle and parallel cores",
    "dense_peak": "the dense-kernel peak",
    "stream_triad": "the bandwidth and the roofline's slope",
    "scalar_fma": "the scalar latency roof",
}
"""The probes of the machine's limits, and what is missing when one fails."""


def all_below_one(probes: Probes) -> list[tuple[str, float, float]]:
    """(what, one core, all cores) of every peak whose all-cores run came out below its
    one-core run (GFLOP/s): the SIMD peak, the dense kernel, each ``precision_peak`` family.
    More cores cannot compute less unless something else took them while they ran (a
    neighbour's load, measured beside a busy core: AMX int8 on a Xeon, 2026-12-07)."""
    pairs: list[tuple[str, object, object]] = []
    for name, one_key in (("simd_fma", "one_core_gflops"), ("dense_peak", "one_thread_gflops")):
        probe = probes.get(name)
        if probe is not None:
            pairs.append((name, probe_detail(probes, name, one_key), probe.value))
    details = probe_details(probes, "precision_peak")
    for key, one in details.items():
        if key.endswith("_one_core"):
            family = key.removesuffix("_one_core")
            pairs.append((family, one, details.get(f"{family}_all_cores")))
    return [
        (name, float(one), float(every))
        for name, one, every in pairs
        if isinstance(one, int | float) and isinstance(every, int | float)
        and 0 < every < (1 - ALL_BELOW_TOLERANCE) * one
    ]  # fmt: skip


ALL_BELOW_TOLERANCE = 0.10
"""All cores below one core by more than this share: with one usable CPU the two runs are
the same work and differ by their noise (58.2 against 58.3 GFLOP/s in a test fixture; the
probes' per-process spread is 5–20 % on a quiet shared VM), a neighbour's load takes far more
(AMX int8 all cores below one core beside a busy core, 2026-12-07)."""


CODE_ERRORS = tuple(
    f"{name}: "
    for name in (
        *("NameError", "AttributeError", "TypeError", "KeyError", "IndexError"),
        *("AssertionError", "ZeroDivisionError", "UnboundLocalError", "SyntaxError"),
    )
)
"""How a probe's error begins when its own code is wrong (the worker writes the exception's
type, then its message), not the machine: nothing the user can fix but report it."""


def probe_load_warnings(probes: Probes) -> list[str]:
    """Doubts about the conditions the probes ran in: one warning naming the probes measured
    while other processes used more than :data:`OTHERS_WARN` of the CPUs (their
    ``other_cpu_fraction``), and one when the dispatch probe's processes differ by more than
    :data:`DISPATCH_RANGE_WARN` (every interpreted unit cost is expressed in its unit), and
    one naming the peaks whose all-cores run came out below one core (:func:`all_below_one`).
    Unit costs, and so the breakdowns and the roofs, may then be off."""
    warnings = []
    loaded = {}
    for name, probe in probes.items():
        share = probe.other_cpu_fraction  # absent from files before it was measured
        if share and share > OTHERS_WARN:
            loaded[name] = share
    if loaded:
        names = ", ".join(sorted(loaded))
        warnings.append(
            f"probes measured while other processes used up to {max(loaded.values()):.0%} of "
            f"the CPUs ({names}): their unit costs, the breakdowns and the roofs may be off; "
            "re-measure on a quiet machine with `overhead-tui probes --refresh`"
        )
    failed = {n: p.error for n, p in probes.items() if p.error and n in MACHINE_PROBES}
    for name, error in sorted(failed.items()):
        fix = (
            "an error in the probe's own code: please report it with this line"
            if error.startswith(CODE_ERRORS)
            else "fix what it says"
        )
        warnings.append(
            f"the {name} probe failed ({error.splitlines()[0][:160]}): {MACHINE_PROBES[name]} "
            f"are not measured; {fix}, then `overhead-tui probes --refresh`"
        )
    slowed = sorted(all_below_one(probes))
    if slowed:
        warnings.append(
            "all cores computed slower than one core in "
            + ", ".join(f"{name} ({every:.4g} < {one:.4g} GFLOP/s)" for name, one, every in slowed)
            + ": another process took cores while they ran, so these peaks are low; re-measure "
            "on a quiet machine with `overhead-tui probes --refresh`"
        )
    dispatch = probes.get("dispatch")
    values = [x for x in (dispatch.samples or []) if x > 0] if dispatch is not None else []
    if len(values) > 1 and max(values) / min(values) - 1 > DISPATCH_RANGE_WARN:
        warnings.append(
            f"the dispatch probe's processes differ by {max(values) / min(values) - 1:.0%} "
            f"({min(values):.3g}–{max(values):.3g} ns/dispatch): the machine's speed changed "
            "while the probes ran, so the breakdowns' unit costs are uncertain; re-measure "
            "with `overhead-tui probes --refresh` when it is steadier"
        )
    return warnings
