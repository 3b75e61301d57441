"""The package's shape (ARCHITECTURE.md): folders with one-way imports, no cycles, small modules.

Imports inside functions count: a deferred import is still a dependency.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import overhead_tui

PACKAGE = Path(overhead_tui.__file__).resolve().parent

LAYERS: dict[str, int] = {
    "errors": 0,
    "summary": 0,
    "kit": 1,
    "worker": 2,
    "machine": 1,
    "analysis": 2,
    "plugins": 3,
    "engine": 4,
    "api": 4,
    "profilers": 5,
    "sweeps": 5,
    "interpreters": 5,
    "present": 6,
    "export": 7,
    "tui": 8,
    "commands": 9,
    "cli": 10,
    "__main__": 11,
}
"""Each part of the package and its level: a part imports only parts of a lower level (and
``errors`` and ``summary`` import only each other).  A command opens the app (``tui``); the
app never calls a command."""
PEERS = {frozenset({"errors", "summary"})}
WORKER_IMPORTS = {"worker", "kit", "summary", "errors"}
KIT_IMPORTS = {"kit", "summary", "errors"}
"""What a module of ``overhead_tui/kit`` may import of the tool: the kit runs in the worker
too, and the worker builds on it (the kit never imports the worker)."""
"""What a module of ``overhead_tui/worker`` may import of the tool: it runs in the child,
under any ``--python`` that has only numpy (the rest of the tool imports platformdirs,
psutil, rich, Textual …)."""
WORKER_THIRD_PARTY = {
    "numpy",
    "cffi",
    "numba",
    "threadpoolctl",
    "platformdirs",
    "Cython",
    "mypy",
    "mypyc",
    "pythran",
    "jax",
    "nuitka",
}
"""Third-party modules a worker module may import: numpy anywhere, the others only inside the
function that needs them (a rung or probe that asks for them, with the fix when missing)."""
MAX_ROOT_MODULES = 5
MAX_JOB_CHARACTERS = 250
"""The longest first sentence of a module's docstring: the one job it does, said in a sentence
(a module is split where it does two, not where it passes a number of lines)."""


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(("overhead_tui", *parts)).removesuffix(".__init__")
        found[name] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> set[str]:
    """Every overhead_tui module ``path`` imports, at any depth of its code."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.startswith("overhead_tui")
        ):
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("overhead_tui"))
    return {n for n in names if n in MODULES}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_has_a_level():
    parts = {_part(m) for m in MODULES} - {"__init__", "_builtin"}
    assert parts <= set(LAYERS), parts - set(LAYERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_go_one_way(module):
    mine = _part(module)
    if mine == "__init__":
        return
    wrong = []
    for other in sorted(_imports(MODULES[module])):
        theirs = _part(other)
        if theirs in ("__init__", mine) or frozenset({mine, theirs}) in PEERS:
            continue
        if LAYERS[theirs] >= LAYERS[mine]:
            wrong.append(f"{other} ({theirs}, level {LAYERS[theirs]})")
    assert not wrong, f"{module} ({mine}, level {LAYERS[mine]}) imports {wrong}"


def test_no_import_cycle():
    graph = {m: _imports(p) - {m} for m, p in MODULES.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        state[node] = 2
        path.pop()
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            assert cycle is None, " -> ".join(cycle)


def _job(path: Path) -> str | None:
    """The first sentence of the module's docstring (its one job), None without one."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not doc:
        return None
    return re.split(r"(?<=[.:;])\s", " ".join(doc.split()), maxsplit=1)[0]


def test_few_modules_at_the_root_and_each_names_its_one_job_first():
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    unsaid = {m: job for m, p in MODULES.items() if not (job := _job(p))}
    assert not unsaid, unsaid
    rambling = {m: job for m, p in MODULES.items() if len(_job(p) or "") > MAX_JOB_CHARACTERS}
    assert not rambling, rambling


def test_the_job_rule_can_fail(tmp_path):
    """A module without a docstring has no job said; a first sentence is cut at its end."""
    bare = tmp_path / "bare.py"
    bare.write_text("x = 1\n")
    assert _job(bare) is None
    said = tmp_path / "said.py"
    said.write_text('"""Times one thing. Then\nmore."""\n')
    assert _job(said) == "Times one thing."


def test_version_and_import_of_the_cli_load_neither_numpy_nor_textual():
    code = (
        "import sys, io, contextlib\n"
        "from overhead_tui import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    assert cli.main(['--version']) == 0\n"
        "assert out.getvalue().startswith('overhead-tui '), out.getvalue()\n"
        "loaded = {'numpy', 'textual'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def _top_level_imports(path: Path) -> set[str]:
    """Modules imported at module level (not inside a function) by ``path``."""
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.If):  # TYPE_CHECKING blocks import nothing at run time
            continue
    return names


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _part(m) in ("worker", "kit")))
def test_the_worker_folder_imports_only_what_an_only_numpy_python_has(module):
    """Every module of ``overhead_tui/worker`` and ``overhead_tui/kit``: of the tool only
    :data:`WORKER_IMPORTS` (the kit: :data:`KIT_IMPORTS`); of the rest the standard library,
    numpy, and :data:`WORKER_THIRD_PARTY` where used."""
    path = MODULES[module]
    tool = {_part(m) for m in _imports(path)}
    allowed = KIT_IMPORTS if _part(module) == "kit" else WORKER_IMPORTS
    assert tool <= allowed, (module, tool - allowed)
    own = set(sys.stdlib_module_names) | {"overhead_tui", "__future__"}
    top = {m.split(".")[0] for m in _top_level_imports(path)} - own
    assert top <= {"numpy"}, (module, top)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    anywhere = {
        (n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
        and (not isinstance(n, ast.ImportFrom) or n.module)
        for a in n.names
    } - own
    assert anywhere <= WORKER_THIRD_PARTY, (module, anywhere - WORKER_THIRD_PARTY)


def test_the_worker_folder_rule_can_fail(tmp_path):
    """The rule above finds a module-level third-party import and an import of the engine."""
    bad = tmp_path / "bad.py"
    bad.write_text("import rich\nfrom overhead_tui.engine import runner\n")
    assert {m.split(".")[0] for m in _top_level_imports(bad)} - set(sys.stdlib_module_names) == {
        "rich",
        "overhead_tui",
    }
    assert {_part(m) for m in _imports(bad)} == {"engine"}


RUN_DIR_HOME = "overhead_tui.engine.run_dir"
"""The one module that knows a run directory's layout and owns its lock."""


def _run_dir_knowledge(path: Path) -> set[str]:
    """What in ``path`` belongs to the run directory's home: the lock and log file names as
    string literals, and the ``fcntl`` module (its lock)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and node.value in ("run.lock", "log.jsonl"):
            found.add(repr(node.value))
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found |= {"import fcntl" for name in names if name == "fcntl"}
    return found


BUILD_LOCK_HOME = "overhead_tui.kit.folders"
"""The other lock: one build of a module at a time (``build_lock``); it names no run file."""


def test_the_run_directory_has_one_home():
    allowed = {BUILD_LOCK_HOME: {"import fcntl"}}
    elsewhere = {
        module: found
        for module, path in MODULES.items()
        if module != RUN_DIR_HOME
        and (found := _run_dir_knowledge(path) - allowed.get(module, set()))
    }
    assert not elsewhere, elsewhere
    assert _run_dir_knowledge(MODULES[RUN_DIR_HOME]) == {
        "'run.lock'",
        "'log.jsonl'",
        "import fcntl",
    }


def test_the_run_directory_rule_can_fail(tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text('import fcntl\nLOG = "log.jsonl"\n')
    assert _run_dir_knowledge(stray) == {"import fcntl", "'log.jsonl'"}


PROBE_READER = "overhead_tui.summary.probes"
"""The one reader of a probe's values (``probe_value``, ``probe_details``, ``probe_detail``)."""


def _reads_details(path: Path) -> list[int]:
    """Lines of ``path`` that read a probe record's ``.details`` themselves."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "details"
        and isinstance(node.ctx, ast.Load)
    )


def test_analysis_and_machine_read_probes_through_the_one_reader():
    """What a probe measured reaches the model and the machine facts through
    ``summary.probes`` only: a module of analysis/ or machine/ that reads ``.details`` itself
    would read it its own way (missing probe, missing key, its sign)."""
    found = {
        module: lines
        for module, path in MODULES.items()
        if _part(module) in ("analysis", "machine") and (lines := _reads_details(path))
    }
    assert not found, found
    assert _reads_details(MODULES[PROBE_READER])  # the reader itself does


def test_the_one_reader_rule_can_fail(tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text("def peak(probe):\n    return (probe.details or {}).get('lanes')\n")
    assert _reads_details(stray) == [2]


MAX_TYPE_IGNORES = 5
"""``# type: ignore`` comments the package may hold (each a place mypy cannot follow)."""


def test_few_type_ignores():
    found = [
        f"{module}:{number}"
        for module, path in MODULES.items()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "type: ignore" in line
    ]
    assert len(found) <= MAX_TYPE_IGNORES, found


MAX_ANY = 60
"""Uses of ``typing.Any`` the package may hold outside its JSON edges (each a value whose type
is truly open: a numpy protocol hook, a user's operand, cffi's objects, ``**kwargs`` passed on)."""
JSON_EDGE_MODULES = {"overhead_tui.summary.codec", "overhead_tui.summary.validation"}
"""Modules whose job is reading and writing JSON: ``Any`` is their data's type."""
JSON_EDGE_FUNCTIONS = {
    *("to_json", "from_json", "record_json", "to_dict", "from_dict", "_load", "schema"),
    *("validate", "load_table", "parse_profile", "to_speedscope", "_log_fields"),
    *("backend_from_json", "_read_cache", "_cache_entries", "_read_record", "_record"),
    "_read_stamp",
}
"""Functions that read or write one JSON shape (a record's, a cache file's, a tool's output)."""


def _any_uses(path: Path, in_edge_module: bool) -> list[int]:
    """Lines of ``path`` using the name ``Any`` outside the JSON edges."""
    if in_edge_module:
        return []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    edges = [
        (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name in JSON_EDGE_FUNCTIONS
    ]
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Name)
        and node.id == "Any"
        and not any(low <= node.lineno <= high for low, high in edges)
    ]


def test_any_is_rare_outside_the_json_edges():
    found = [
        f"{module}:{line}"
        for module, path in MODULES.items()
        for line in _any_uses(path, module in JSON_EDGE_MODULES)
    ]
    assert len(found) <= MAX_ANY, (len(found), found)


def test_the_any_count_can_fail(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import Any\n"
        "def to_json(x: Any) -> Any:\n    return x\n"
        "def kernel(x: Any) -> Any:\n    return x\n"
    )
    assert _any_uses(sample, False) == [4, 4] and _any_uses(sample, True) == []


def _kit_modules() -> set[str]:
    """The worker modules ``overhead_tui.api`` hands to scenario and probe files (its map of
    names to modules, read from its source)."""
    tree = ast.parse(MODULES["overhead_tui.api"].read_text(encoding="utf-8"))
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith(("overhead_tui.worker.", "overhead_tui.kit."))
        and node.value in MODULES
    }


def _reachable(roots: set[str]) -> set[str]:
    seen, todo = set(), list(roots)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(_imports(MODULES[module]))
    return seen


def test_every_worker_module_runs_in_the_worker():
    """worker/ holds the child and the kit, nothing only the parent uses: each of its
    modules is reached from the worker's entry (``worker.main``, ``worker.__main__``) or from
    a module ``api`` hands to scenario and probe files."""
    worker = {m for m in MODULES if _part(m) in ("worker", "kit")}
    entry = {"overhead_tui.worker.main", "overhead_tui.worker.__main__", "overhead_tui.worker"}
    reached = _reachable(entry | _kit_modules())
    reached |= {m.rsplit(".", 1)[0] for m in reached}  # a package runs its __init__
    assert worker - reached == set(), "parent-only code in worker/: move it beside its users"


FILES = (".py", ".json", ".jsonl", ".md", ".tcss")
"""Endings of file names the page quotes (``summary.json``), not code names."""


def _documented_names() -> set[str]:
    """Dotted names of the package in ARCHITECTURE.md's backticks (``engine.runner.Runner``,
    ``present.live.LiveLadder.changed``): a part of the package, then modules and attributes."""
    import re

    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    names = set()
    for quoted in re.findall(r"`([A-Za-z_][\w.]*)`", text):
        if "." in quoted and quoted.split(".")[0] in LAYERS and not quoted.endswith(FILES):
            names.add(quoted)
    return names


def _resolves(dotted: str) -> bool:
    """True when ``overhead_tui.<dotted>`` is a module, or an attribute of one (at any depth)."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = "overhead_tui." + ".".join(parts[:cut])
        if module not in MODULES:
            continue
        found: object = importlib.import_module(module)
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def test_every_code_name_in_the_architecture_page_exists():
    names = _documented_names()
    assert {"engine.runner.Runner", "engine.events.snapshot"} <= names
    missing = sorted(n for n in names if not _resolves(n))
    assert not missing, missing
    assert not _resolves("engine.runner.NoSuchRunner")  # the check can fail


SHARED_COMMAND_MODULES = {"command", "common", "arguments", "export_paths", "budgeted"}
"""The command modules others compose (the Command record, options, checks, the budgeted
sweeps' shared parts); a subcommand's own module imports no other subcommand."""


def test_no_command_imports_another_command():
    found = {}
    for module, path in MODULES.items():
        parts = module.split(".")
        if parts[1:2] != ["commands"] or len(parts) < 3 or parts[2] in SHARED_COMMAND_MODULES:
            continue
        others = {
            m.split(".")[2]
            for m in _imports(path)
            if m.startswith("overhead_tui.commands.") and m.split(".")[2] != parts[2]
        }
        if others - SHARED_COMMAND_MODULES:
            found[module] = sorted(others - SHARED_COMMAND_MODULES)
    assert not found, found


def test_every_command_is_a_command_object_named_as_the_cli_lists_it():
    from overhead_tui.cli import COMMANDS, command_module
    from overhead_tui.commands.command import Command

    for name in COMMANDS:
        command = command_module(name).COMMAND
        assert isinstance(command, Command) and command.name == name
        assert command.help and command.description and callable(command.run)


def test_a_check_function_raises_or_returns_nothing():
    """One contract for ``check_*`` (issue 54): it raises with the fix, or returns None; a
    function that returns what it resolved is ``resolve_*`` / ``verified_*``, one that returns
    a message ``*_problem``."""
    returning = {
        f"{module}.{node.name}": ast.unparse(node.returns) if node.returns else "unannotated"
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef)
        and node.name.startswith("check_")
        and not (isinstance(node.returns, ast.Constant) and node.returns.value is None)
    }
    assert not returning, returning
