"""The C build cache key: a build is reused only for the same source, flags and CPU."""

from __future__ import annotations

from overhead_tui.kit.cbuild import build_key, cpu_signature
from tests.conftest import FIXTURES

CPUINFO = FIXTURES / "cpuinfo"
BASE = ("void matmul(void) {}", "gcc 12.2", ["-O3", "-march=native"], [], "double")


def test_signature_names_the_model_and_its_flags():
    zen3 = cpu_signature(CPUINFO / "zen3-epyc-constructed.txt")
    assert "model name: AMD EPYC" in zen3 and "avx2" in zen3
    arm = cpu_signature(CPUINFO / "neoverse-n1-constructed.txt")
    assert "CPU part" in arm and "Features" in arm


def test_key_changes_with_the_cpu():
    signatures = {
        cpu_signature(CPUINFO / name)
        for name in (
            "zen3-epyc-constructed.txt",
            "zen4-epyc-2vcpu.txt",
            "sapphire-rapids-constructed.txt",
            "neoverse-n1-constructed.txt",
        )
    }
    assert len(signatures) == 4
    assert len({build_key(*BASE, cpu) for cpu in signatures}) == 4


def test_key_changes_with_one_cpu_flag(tmp_path):
    original = (CPUINFO / "zen3-epyc-constructed.txt").read_text()
    assert " avx2 " in original
    without = tmp_path / "cpuinfo"
    without.write_text(original.replace(" avx2 ", " "))
    assert build_key(*BASE, cpu_signature(without)) != build_key(
        *BASE, cpu_signature(CPUINFO / "zen3-epyc-constructed.txt")
    )


def test_key_changes_with_the_flags_and_is_stable_otherwise():
    cpu = cpu_signature(CPUINFO / "zen3-epyc-constructed.txt")
    source, version, flags, link, real = BASE
    key = build_key(source, version, flags, link, real, cpu)
    assert key == build_key(source, version, list(flags), link, real, cpu)
    assert key != build_key(source, version, ["-O3"], link, real, cpu)
    assert key != build_key(source, version, flags, ["-fopenmp"], real, cpu)
    assert key != build_key(source, "gcc 13.1", flags, link, real, cpu)
    # a flag moved from compiling to linking is a different build
    assert build_key(source, version, ["-O3", "-x"], [], real, cpu) != build_key(
        source, version, ["-O3"], ["-x"], real, cpu
    )


def test_missing_cpuinfo_falls_back_to_the_platform(tmp_path):
    assert cpu_signature(tmp_path / "absent").strip()
