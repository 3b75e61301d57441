"""The scalar_fma probe's aliased loads, measured for real: the check of whether the
compiled-rung model's page-aliased copies of A and B are L1-resident on this CPU."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).resolve().parents[2] / "probes" / "scalar_fma.py"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pages alias on Linux only")
def test_loads_through_aliased_pages_and_within_one_page_are_both_timed():
    from overhead_tui.analysis.memory import aliasing_refills
    from overhead_tui.analysis.unit_costs import UnitCosts
    from overhead_tui.kit.chains import chain_call, chain_library
    from overhead_tui.kit.probing import ProbeContext

    spec = importlib.util.spec_from_file_location("scalar_fma_probe", PROBE)
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    clock = chain_call(chain_library(), "imul", probe.IMUL_ITERATIONS)
    found = probe._aliased_loads(ProbeContext(3, 0.005), clock)
    assert set(found) == {"aliased_load_ns", "page_load_ns"}
    assert all(math.isfinite(v) and v > 0 for v in found.values()), found
    # the model reads them: a verdict either way, never an error
    verdict = aliasing_refills(UnitCosts(**found))
    assert verdict == "" or verdict.startswith("a lower bound on this CPU")


def test_a_compiled_rung_is_timed_again_at_an_order_whose_rows_reach_every_l1_set(cli, tmp_path):
    """n = 16 doubles is a row of 2 lines (half the L1 sets for a column walk): the worker
    times the kernel again at n = 24 (3 lines), on fresh inputs of that order."""
    from overhead_tui.summary.records import RunSummary

    proc = cli("run", "--scenario", "c_naive_O2", "--size", "16", "--repeats", "2",
               "--min-time", "0.001", "--no-probes", "--out", tmp_path / "run")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    resident = RunSummary.load(tmp_path / "run" / "summary.json").scenario("c_naive_O2").resident
    assert resident is not None and resident.spread_n == 24
    samples = resident.spread_samples_s_per_fma
    assert samples and all(s > 0 for s in samples)
