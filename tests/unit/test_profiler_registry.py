"""Every profiler backend is one record in the registry, read by every consumer."""

from __future__ import annotations

from overhead_tui.profilers import registry
from overhead_tui.profilers.capabilities import Capability


def test_every_backend_has_a_check_and_a_runner_and_the_names_follow_the_registry():
    assert (
        registry.BACKENDS == tuple(registry.REGISTRY) == ("perf", "pyspy", "callgrind", "scalene")
    )
    for name, backend in registry.REGISTRY.items():
        assert backend.name == name and callable(backend.detect) and callable(backend.run)


def test_a_backend_added_to_the_registry_is_detected_and_run(monkeypatch):
    from overhead_tui.plugins.scenarios import discover
    from overhead_tui.plugins.selection import select
    from overhead_tui.profilers import profile

    ran = []

    def run(job):
        ran.append((job.spec.name, job.n))
        return {"status": "ok"}

    extra = registry.Backend("fake", lambda: Capability("fake", True, "1", path="/bin/true"), run)
    monkeypatch.setitem(registry.REGISTRY, "fake", extra)
    assert registry.detect(("fake",))["fake"].ok
    spec = select(discover(), ["python_naive"])[0]
    part = profile._run_backend("fake", extra.detect(), "python", {}, spec, 8, 1.0)
    assert part == {"status": "ok"} and ran == [("python_naive", 8)]
