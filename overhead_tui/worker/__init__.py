"""Everything that runs inside a worker process, and nothing else.

A worker is started as ``python -m overhead_tui.worker TASK_JSON`` (``engine.spawn.Child``),
possibly under another interpreter (``--python``) that has only numpy: every module of this
folder imports the standard library, numpy (lazily, where a rung needs it), cffi (lazily, for
C rungs and probes) and only ``overhead_tui.worker``, ``overhead_tui.summary`` and
``overhead_tui.errors`` of the tool itself — ``tests/unit/test_architecture.py`` enforces it.

``main`` is the worker's entry (its modes: run, probe, profile, callgrind); ``protocol`` the
task and every message; ``validate``, ``inputs``, ``cpu_time``, ``process`` what a rung's
worker does; ``compiled_rung``, ``hotloop`` and ``loop_nest`` what a compiled rung's code does
per iteration; ``counting/`` the exact bytecode events and the sites of C work.  The helpers
scenario and probe files use (``probing``, ``simd``, ``chains``, ``cbuild``, ``folders``) live
in ``overhead_tui.kit``, reached through ``overhead_tui.api``.
"""
