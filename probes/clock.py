"""The clock the cores actually run at (GHz), from two dependent chains no renamer can fold.

Two methods on different execution units (``kit.chains``: inline assembly, so no compiler
can change them, and the generated code is checked for the instructions): a dependent
``imul`` chain (3 cycles a step on every x86 since Nehalem) and a dependent ``add``/``xor``
chain of registers (2 cycles a step; never an add of an immediate, which Golden Cove folds at
rename: the old ``(x + 1) ^ m`` chain read 4.3–4.7 GHz on a 2.3 GHz Emerald Rapids core).

GHz = cycles per step × steps / time; the two chains are timed interleaved, so a change of
speed hits both.  Verdict: they agree within :data:`AGREE_WITHIN` → the value is the ``imul``
figure; otherwise the *lower* one (a chain reads faster than its documented latency only when
the core folds or fuses it; being disturbed slows both alike), and ``clock_warning`` says
which was used and why.  Virtual machines often report only the nominal clock while the cores
run faster (turbo).
"""

import statistics

from overhead_tui.api import (
    ProbeMeasurement,
    chain_call,
    chain_ghz,
    chain_instructions,
    chain_library,
)

NAME = "clock"
TITLE = "measured core clock (imul and add/xor chains)"
UNIT = "GHz"
LAYER = "scalar_compute"
REQUIRES = ("cffi",)
ITERATIONS = 1_000_000
"""Loop iterations per call (8 chain steps each): about 8 ms of imul chain at 3 GHz."""
AGREE_WITHIN = 0.05
"""The two chains' figures may differ by 5 % (relative to the lower) and still agree."""


def verdict(imul, add_xor, agree_within=AGREE_WITHIN):
    """(GHz used, verdict in words, warning or None) from the chains' figures (either None)."""
    if imul is None or add_xor is None:
        which = "imul" if imul else "add_xor"
        return (
            imul or add_xor,
            f"{which} chain only",
            (
                f"the clock comes from the {which} chain alone (the other's latency is not "
                "tabulated for this CPU): no second method checked it"
            ),
        )
    gap = max(imul, add_xor) / min(imul, add_xor) - 1
    if gap <= agree_within:
        return imul, f"agree within {gap:.1%}", None
    lower = min(imul, add_xor)
    used = "imul" if lower == imul else "add_xor"
    return (
        lower,
        f"disagree by {gap:.0%}",
        (
            f"the two clock chains disagree by {gap:.0%} (imul {imul:.2f} GHz, add/xor "
            f"{add_xor:.2f} GHz): used the lower, {used} {lower:.2f} GHz (a chain reads fast only "
            "when the core folds its instructions); re-measure with `overhead-tui probes "
            "--refresh` on a quiet machine"
        ),
    )


def measure(ctx):
    lib = chain_library()
    counts = chain_instructions()
    pairs = ctx.time_pair(
        chain_call(lib, "imul", ITERATIONS),
        chain_call(lib, "add_xor", ITERATIONS),
    )
    ghz = {
        "imul": [chain_ghz("imul", a, ITERATIONS) for a, _ in pairs],
        "add_xor": [chain_ghz("add_xor", b, ITERATIONS) for _, b in pairs],
    }
    medians = {c: statistics.median(v) if None not in v else None for c, v in ghz.items()}
    value, said, warning = verdict(medians["imul"], medians["add_xor"])
    details = {
        "imul_ghz": medians["imul"],
        "add_xor_ghz": medians["add_xor"],
        "verdict": said,
        "imul_instructions": counts.get("imul"),
        "add_xor_instructions": counts.get("add_xor"),
    }
    if min(counts.values(), default=0) < 8:
        warning = (
            f"the generated code holds {counts} chain instructions, fewer than 8 each: the "
            "chains were not built as written"
        )
    if warning:
        details["clock_warning"] = warning
    samples = ghz["imul"] if value == medians["imul"] else ghz["add_xor"]
    return ProbeMeasurement(samples, {k: v for k, v in details.items() if v is not None}, value)
