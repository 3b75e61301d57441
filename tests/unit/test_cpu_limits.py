"""The CPU model, the peak formula and the roofline arithmetic.

``zen4-epyc-2vcpu.txt`` is this machine's /proc/cpuinfo; the other texts are constructed from
the documented /proc/cpuinfo formats of those CPUs (no such machine was available).
"""

from __future__ import annotations

import pytest

from overhead_tui.machine.cpu import parse_cpuinfo
from overhead_tui.machine.limits import arithmetic_intensity, machine_limits
from overhead_tui.summary.probes import probe_records
from tests.conftest import FIXTURES, scenario_result

CPUINFO = FIXTURES / "cpuinfo"


def _cpu(name):
    return parse_cpuinfo((CPUINFO / name).read_text())


def test_this_machine_zen4():
    cpu = _cpu("zen4-epyc-2vcpu.txt")  # family 19h model 11h: the table says Zen 4
    assert (cpu.vendor, cpu.family, cpu.model) == ("AuthenticAMD", 25, 17)
    assert cpu.microarchitecture == "Zen 4" and "57647" in cpu.source
    assert cpu.simd_width_bits == 512 and "avx512f" in cpu.isa
    assert cpu.physical_cores == 2
    assert cpu.flop_per_cycle("float64") == 16 and cpu.flop_per_cycle("float32") == 32
    value, formula = cpu.peak("float64", 3.0)
    assert value == pytest.approx(96.0)
    assert formula == "2 cores × 16 FLOP/cycle/core × 3.00 GHz = 96.0 GFLOP/s"


def test_sapphire_rapids_row_and_nominal_clock_from_the_name():
    cpu = _cpu("sapphire-rapids-constructed.txt")
    assert cpu.microarchitecture == "Sapphire / Emerald Rapids"
    assert cpu.flop_per_cycle("float64") == 32 and "amx_tile" in cpu.isa
    assert cpu.nominal_ghz == pytest.approx(2.0)


def test_unknown_x86_follows_the_fallback_rule():
    cpu = _cpu("unknown-x86-constructed.txt")
    assert cpu.microarchitecture == "unknown HygonGenuine" and "fallback" in cpu.source
    assert (cpu.fma_units, cpu.fma_width_bits) == (2, 256)


def test_arm_neoverse_n1():
    cpu = _cpu("neoverse-n1-constructed.txt")
    assert cpu.microarchitecture == "Neoverse N1" and cpu.isa == ["asimd"]
    assert cpu.logical_cpus == 2 and cpu.flop_per_cycle("float64") == 8


def test_roofline_arithmetic():
    assert arithmetic_intensity(1024, "float64") == pytest.approx(2 * 1024 / 24)
    assert arithmetic_intensity(96, "float32") == pytest.approx(16.0)


def test_limits_flag_a_measured_peak_above_theory():
    cpu = _cpu("zen4-epyc-2vcpu.txt")
    probes = {
        "clock": {"value": 2.0},
        "simd_fma": {"value": 80.0},
        "stream_triad": {"value": 30.0, "details": {"one_thread_gbs": 20.0}},
    }
    limits = machine_limits(cpu, probe_records(probes))
    f64 = limits.peak_gflops["float64"]
    assert f64.theoretical == pytest.approx(64.0)  # 2 × 16 × 2.0
    assert f64.measured == 80.0 and "too low" in f64.warning
    assert limits.bandwidth_gbs == {"one_core": 20.0, "all_cores": 30.0}
    assert limits.clock_ghz["measured"] == 2.0


def test_reference_hardware_file_is_valid_and_compares():
    from overhead_tui.machine.reference import load_reference, times_below

    machines = {m.name: m for m in load_reference()}
    assert machines["NVIDIA A100 80GB PCIe"].fp32_gflops == 19500
    assert machines["AMD EPYC 9965"].fp32_gflops == pytest.approx(192 * 64 * 3.35, rel=0.001)
    assert machines["Intel Xeon 6980P"].fp16_amx_gflops == pytest.approx(
        128 * 1024 * 3.2,
        rel=0.002,  # 419.4 rounded to 419 in the source
    )
    assert times_below(19.5, machines["NVIDIA A100 80GB PCIe"], "float32") == pytest.approx(1000)
    assert times_below(1.0, machines["NVIDIA B200"], "float64") is None  # no FP64 figure given


def test_zen3_two_cores_four_threads():
    cpu = _cpu("zen3-epyc-constructed.txt")  # EPYC 7763: family 19h model 01h, SMT
    assert cpu.microarchitecture == "Zen 3" and "56665" in cpu.source
    assert (cpu.logical_cpus, cpu.physical_cores) == (4, 2)
    assert cpu.simd_width_bits == 256 and cpu.flop_per_cycle("float32") == 32
    value, formula = cpu.peak("float64", 2.45)
    assert value == pytest.approx(2 * 16 * 2.45)
    assert formula.startswith("2 cores × 16 FLOP/cycle/core × 2.45 GHz")


def test_measured_peaks_per_dtype_take_the_best_source():
    cpu = _cpu("zen4-epyc-2vcpu.txt")
    probes = {
        "clock": {"value": 3.0},
        "simd_fma": {
            "value": 90.0,
            "details": {"one_core_gflops": 45.0, "float32_gflops": 150.0},
        },
        "dense_peak": {"value": 95.0, "details": {"float32_gflops": 180.0}},
    }
    peaks = machine_limits(cpu, probe_records(probes)).peak_gflops
    assert (peaks["float64"].measured, peaks["float64"].measured_by) == (95.0, "dense_peak")
    assert peaks["float64"].ratio == pytest.approx(95.0 / 96.0)
    assert peaks["float64"].one_core == 45.0
    assert peaks["float32"].measured == 180.0 and peaks["float32"].one_core is None
    assert peaks["float32"].warning is None


def test_theoretical_peak_counts_only_the_effective_cores(monkeypatch):
    import overhead_tui.machine.limits as limits_module

    monkeypatch.setattr(limits_module, "cgroup_cpu_quota", lambda: 1.5)
    limits = machine_limits(_cpu("zen4-epyc-2vcpu.txt"), probe_records({"clock": {"value": 2.0}}))
    assert limits.cgroup_cpu_quota == 1.5 and limits.effective_cores == 1.5
    assert limits.peak_gflops["float64"].theoretical == pytest.approx(1.5 * 16 * 2.0)


def test_all_core_bandwidth_below_one_core_is_flagged_and_the_roofline_uses_the_higher():
    from overhead_tui.machine.limits import roofline_bandwidth

    probes = {"stream_triad": {"value": 21.8, "details": {"one_thread_gbs": 29.9}}}
    limits = machine_limits(_cpu("zen4-epyc-2vcpu.txt"), probe_records(probes))
    assert "below one core's" in limits.limit_warnings[0]
    assert roofline_bandwidth(limits.bandwidth_gbs) == 29.9
    probes["stream_triad"]["value"] = 39.0
    assert machine_limits(None, probe_records(probes)).limit_warnings == []
    # on one usable CPU (taskset -c 0) all cores is one core: 3 % apart is their own spread
    probes = {"stream_triad": {"value": 30.6, "details": {"one_thread_gbs": 31.5}},
              "simd_fma": {"value": 58.2, "details": {"one_core_gflops": 58.3}}}  # fmt: skip
    assert machine_limits(None, probe_records(probes)).limit_warnings == []


def _rung(name, layers, gflops):
    n = 100
    flops = 2 * n**3
    return scenario_result(
        name, layers=layers, n=n, status="ok", median_s=flops / gflops / 1e9, gflops=gflops
    )


def test_simd_all_cores_below_one_core_and_asm_warnings_are_flagged():
    """Zen 3 (AVX2): float32 all cores 46.4 below one core 52.6 went unflagged."""
    probes = {
        "clock": {"value": 3.06},
        "simd_fma": {
            "value": 32.0,
            "details": {
                "one_core_gflops": 19.1,
                "float32_gflops": 46.4,
                "float32_one_core_gflops": 52.6,
                "isa": "avx2",
                "target_cpu": "znver3",
                "target_from": "host",
                "simd_width_bits": 256,
                "asm_warning": "24 stack loads/stores in the hot loop (register spills)",
            },
        },
    }
    limits = machine_limits(_cpu("zen3-epyc-constructed.txt"), probe_records(probes))
    warnings = limits.limit_warnings
    assert any(w.startswith("float64 SIMD peak probe (avx2 code): 24 stack") for w in warnings)
    assert any(
        w.startswith("float32 SIMD peak on all cores (46.4 GFLOP/s) is below") for w in warnings
    )
    # 19.1 GFLOP/s at 3.06 GHz is 6.2 FLOP/cycle where the table says 16: the second method
    assert any(w.startswith("fma flop per cycle: one core did 6.2 float64") for w in warnings)
    assert any(w.startswith("clock: the clock comes from") or "one chain" in w for w in warnings)
    f64 = limits.peak_gflops["float64"]
    assert f64.one_core_theoretical == pytest.approx(16 * 3.06)
    assert f64.one_core_ratio == pytest.approx(19.1 / (16 * 3.06))


def test_simd_code_narrower_than_the_fma_units_is_flagged():
    """Emerald Rapids: 256-bit code on 512-bit units read 33.5 GFLOP/s and became the roof."""
    probes = {
        "clock": {"value": 2.3, "details": {"imul_ghz": 2.3, "add_xor_ghz": 2.31}},
        "simd_fma": {
            "value": 140.0,
            "details": {
                "one_core_gflops": 36.0,
                "isa": "avx2",
                "target_from": "OVERHEAD_TUI_PEAK_ISA=avx2",
                "simd_width_bits": 256,
                "parallel_cores": 2.0,
            },
        },
    }
    spr = _cpu("sapphire-rapids-constructed.txt")  # 2 × 512-bit FMA
    zen4 = machine_limits(_cpu("zen4-epyc-2vcpu.txt"), probe_records(probes))  # 2 × 256
    assert not any("SIMD peak probe ran" in w for w in zen4.limit_warnings)
    assert zen4.peak_gflops["float64"].one_core == 36.0
    limits = machine_limits(spr, probe_records(probes))
    reached = 36.0 / (16 * 2.3)  # of the 256-bit code's own one-core peak
    every = 140.0 / (16 * 2.3 * spr.physical_cores)  # and of its all-cores peak
    assert (
        "the SIMD peak probe ran 256-bit code (avx2, chosen by OVERHEAD_TUI_PEAK_ISA=avx2) on "
        "512-bit FMA units: at most 0.5 of the theoretical peak, so it is not used as the SIMD "
        f"roof; it reached {reached:.2f} × that on one core and {every:.2f} × on all "
        f"{spr.physical_cores} (float64)"
    ) in limits.limit_warnings
    f64 = limits.peak_gflops["float64"]
    assert f64.one_core is None and f64.measured_by != "simd_fma"  # not the roof
    fma = next(c for c in limits.fact_checks if c.fact == "fma_flop_per_cycle")
    assert fma.agree and fma.second == 16  # 256-bit code: 2 units × 4 lanes × 2
    probes["simd_fma"]["details"]["simd_width_bits"] = 512
    wide = machine_limits(spr, probe_records(probes))
    assert not any("SIMD peak probe ran" in w for w in wide.limit_warnings)
    assert wide.peak_gflops["float64"].one_core == 36.0


def test_theoretical_peaks_use_the_clock_under_fma_load():
    """Granite/Emerald Rapids vCPU (2026-12-02): 512-bit FMA code runs at 3.26 GHz where the
    scalar chains read 3.55; at the scalar clock the peaks read 0.88 of theory, at the loaded
    clock 0.98.  The impossible-result bound keeps the higher, scalar clock."""
    from overhead_tui.machine.limits import speed_bound

    details = {"one_core_gflops": 101.0, "simd_width_bits": 512, "vector_clock_ghz": 3.26}
    probes = {
        "clock": {"value": 3.55, "details": {"imul_ghz": 3.55, "add_xor_ghz": 3.54}},
        "simd_fma": {"value": 204.0, "details": details},
    }
    spr = _cpu("sapphire-rapids-constructed.txt")
    limits = machine_limits(spr, probe_records(probes))
    f64 = limits.peak_gflops["float64"]
    cores = limits.peak_gflops["float64"].theoretical / (32 * 3.26)
    assert f64.one_core_theoretical == pytest.approx(32 * 3.26)
    assert f64.formula.endswith("(clock under 512-bit FMA load)")
    assert limits.clock_ghz["vector"] == 3.26 and cores == pytest.approx(round(cores))
    bound, how = speed_bound(spr, probe_records(probes), "float64")
    assert bound == pytest.approx(spr.peak("float64", 3.55)[0]) and "3.55 GHz" in how
    details["simd_width_bits"] = 256  # narrower code: its clock is not the units' clock
    narrow = machine_limits(spr, probe_records(probes))
    assert narrow.clock_ghz["vector"] is None
    assert narrow.peak_gflops["float64"].one_core_theoretical == pytest.approx(32 * 3.55)


def test_a_ceiling_below_a_rung_on_the_same_threads_is_flagged():
    """Zen 3: the roofline drew "SIMD one core 19.9" under a 1-thread BLAS doing 40."""
    from overhead_tui.summary.records import RunSummary

    probes = {"simd_fma": {"value": 60.0, "details": {"one_core_gflops": 19.9}}}
    summary = RunSummary(
        probes=probe_records(probes),
        scenarios=[
            _rung("numpy_matmul_1thread", ["dense_kernel"], 40.0),
            _rung("c_tiled_simd", ["simd_compute", "memory"], 20.5),  # within 5 %: noise
            _rung("c_openmp", ["simd_compute", "memory", "parallel"], 70.0),
            _rung("numpy_matmul", ["dense_kernel", "parallel"], 65.0),  # is the peak itself
        ],
    )
    warnings = machine_limits(None, probe_records(probes), summary).limit_warnings
    assert len(warnings) == 2
    assert warnings[0].startswith(
        "numpy_matmul_1thread (one thread) runs at 40 GFLOP/s, above the one-core SIMD peak "
        "(19.9 GFLOP/s)"
    )
    assert warnings[1].startswith(
        "c_openmp (all threads) runs at 70 GFLOP/s, above the all-cores peak (65 GFLOP/s)"
    )
    summary.scenarios[0].status = "invalid"  # only rungs with a speed count
    assert len(machine_limits(None, probe_records(probes), summary).limit_warnings) == 1


def test_without_probes_a_one_thread_rung_is_no_all_cores_ceiling_to_flag_against():
    """--no-probes with numpy_matmul_1thread and c_blocked_packed_threads: the all-cores
    "peak" is the one-thread BLAS rung's speed, which a threaded rung may well beat."""
    from overhead_tui.summary.records import RunSummary

    summary = RunSummary(
        scenarios=[
            _rung("numpy_matmul_1thread", ["dense_kernel"], 50.2),
            _rung("c_blocked_packed_threads", ["simd_compute", "memory", "parallel"], 88.0),
        ],
    )
    assert machine_limits(None, {}, summary).limit_warnings == []
    summary.scenarios.append(_rung("numpy_matmul", ["dense_kernel", "parallel"], 70.0))
    warnings = machine_limits(None, {}, summary).limit_warnings
    assert len(warnings) == 1 and "above the all-cores peak (70 GFLOP/s)" in warnings[0]
    assert "run with the probes (without --no-probes)" in warnings[0]


def test_a_dense_kernel_that_scales_less_than_the_cores_is_flagged():
    """Emerald Rapids: BLAS 60.8 → 77.9 GFLOP/s (1.28×) where two FMA loops scaled 1.73×."""
    from overhead_tui.summary.records import RunSummary

    probes = {
        "simd_fma": {"value": 126.5, "details": {"one_core_gflops": 73.3, "parallel_cores": 1.73}}
    }
    rungs = [
        _rung("numpy_matmul_1thread", ["dense_kernel"], 60.8),
        _rung("numpy_matmul", ["dense_kernel", "parallel"], 77.9),
    ]
    summary = RunSummary(probes=probe_records(probes), scenarios=rungs)
    cpu = _cpu("sapphire-rapids-constructed.txt")
    warnings = machine_limits(cpu, probe_records(probes), summary).limit_warnings
    assert any(
        w.startswith("the dense kernel scales 1.28× from one thread to all (numpy_matmul)")
        for w in warnings
    ), warnings
    rungs[1] = _rung("numpy_matmul", ["dense_kernel", "parallel"], 110.0)  # 1.81×: fine
    summary = RunSummary(probes=probe_records(probes), scenarios=rungs)
    warnings = machine_limits(cpu, probe_records(probes), summary).limit_warnings
    assert not any("dense kernel scales" in w for w in warnings)


def test_more_parallel_cores_than_there_are_is_a_disturbed_one_core_run():
    probes = {
        "simd_fma": {"value": 90.0, "details": {"one_core_gflops": 34.0, "parallel_cores": 2.66}}
    }
    limits = machine_limits(_cpu("zen3-epyc-constructed.txt"), probe_records(probes))
    check = next(c for c in limits.fact_checks if c.fact == "parallel_cores")
    assert check.agree is False and "the one-core run was slowed" in check.note


def test_a_failed_machine_probe_is_named_with_what_it_leaves_unmeasured():
    probes = {"clock": {"value": 2.9}, "simd_fma": {"error": "Unavailable: no C compiler"}}
    warnings = machine_limits(
        _cpu("zen3-epyc-constructed.txt"), probe_records(probes)
    ).limit_warnings
    assert any(
        w.startswith("the simd_fma probe failed (Unavailable: no C compiler): the SIMD peak")
        for w in warnings
    ), warnings
