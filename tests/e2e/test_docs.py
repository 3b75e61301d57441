"""The docs: the site builds with warnings as errors, its generated pages are current, every
`overhead-tui` option the pages and the README name exists, marked examples run, and no link
leaves the repository."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from overhead_tui.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
COMMAND = re.compile(r"overhead-tui(?: [a-z][a-z-]*)?(?: [^`\n#|]*)?")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "scripts" / "gen_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _options() -> dict[str, set[str]]:
    """{command ("" for the app): its option strings}."""
    parser = build_parser()
    found = {"": {o for a in parser._actions for o in a.option_strings}}
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        found[name] = {o for a in command._actions for o in a.option_strings}
    return found


def test_the_generated_reference_pages_are_current():
    generator = _load_generator()
    for name, page in generator.PAGES.items():
        on_disk = (ROOT / "docs" / "reference" / name).read_text(encoding="utf-8")
        assert on_disk == page(), f"docs/reference/{name} is stale: run `make docs`"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_option_the_docs_name_exists(page):
    options = _options()
    text = page.read_text(encoding="utf-8")
    for use in COMMAND.findall(text):
        words = use.split()
        command = words[1] if len(words) > 1 and words[1] in options else ""
        for option in OPTION.findall(use):
            assert (
                option in options[command] | options[""]
                if not command
                else option in (options[command])
            ), f"{page.name}: `{use.strip()}` names {option}, which `{command or 'the app'}` lacks"


def _examples():
    for page in PAGES:
        blocks = re.findall(r"<!-- example: runs -->\n```sh\n(.*?)```", page.read_text(), re.S)
        for block in blocks:
            for line in block.strip().splitlines():
                yield pytest.param(line, id=f"{page.name}: {line}")


@pytest.mark.parametrize("line", list(_examples()))
def test_marked_examples_run(line, tmp_path):
    argv = shlex.split(line)
    assert argv[0] == "overhead-tui"
    extra = ["--out", str(tmp_path / "run")] if argv[1:2] == ["run"] else []
    proc = subprocess.run(
        [sys.executable, "-m", "overhead_tui", *argv[1:], *extra],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_link_leaves_the_repository(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        assert "://" not in target, f"{page.name} links outside the repository: {target}"
        resolved = (page.parent / target).resolve()
        assert resolved.is_relative_to(ROOT), f"{page.name}: {target} leaves the repository"
        assert resolved.exists(), f"{page.name}: {target} does not exist"


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("mkdocs")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_readme_is_short_and_says_how_to_reach_the_command():
    """A newcomer reads the README whole: at most 150 lines, the two commands, and where
    `overhead-tui` is after `make run` (the virtualenv, not the PATH)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "make run" in text and "make test" in text
    assert ".venv/bin/overhead-tui" in text and "source .venv/bin/activate" in text
