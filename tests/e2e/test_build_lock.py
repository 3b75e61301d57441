"""A module wanted by two processes at once is built once: the other waits and loads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

BUILD = textwrap.dedent(
    """
    import json, sys
    from overhead_tui.kit.cbuild import build
    source = ("void matmul(const real_t *a, const real_t *b, real_t *c, int n) "
              "{{ c[0] = a[0] * b[0]; }}")
    _, lib, info = build("lock_probe", source, ["-O2", "-DTAG={tag}"], "float64")
    print(json.dumps({{"cached": info["cached"]}}))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="flock on Linux")
def test_two_processes_wanting_one_module_build_it_once(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("OVERHEAD_TUI_CACHE_DIR", None)
    script = BUILD.format(tag=os.getpid())
    command = [sys.executable, "-c", script]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    procs = [subprocess.Popen(command, env=env, **pipes) for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    cached = sorted(json.loads(out.strip().splitlines()[-1])["cached"] for out, _ in outputs)
    assert cached == [False, True]
