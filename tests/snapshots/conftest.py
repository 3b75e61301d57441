"""The snapshots' versions: the SVGs were recorded with exactly the versions pinned (``==``) in
``pyproject.toml``'s ``test`` extra, and other versions render differently.

A snapshot test fails, naming the pins and the fix, when an installed version differs (or a
package the snapshots depend on is not pinned), rather than being skipped: a green run with
the snapshots left out would hide that the screens were never compared.
"""

from __future__ import annotations

import functools
import re
import tomllib
from importlib.metadata import PackageNotFoundError, version

import pytest

from tests.conftest import ROOT

SNAPSHOT_PACKAGES = (
    "textual",
    "textual-plotext",
    "plotext",
    "rich",
    "pygments",
    "pytest-textual-snapshot",
    "syrupy",
)
"""What draws the screens (Textual, the plot widget, Rich, the source highlighter) and what
records and compares them."""


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned_versions() -> dict[str, str]:
    """{package: version} for every ``name==version`` in the ``test`` extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {}
    for requirement in project["optional-dependencies"]["test"]:
        match = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s;,]+)\s*", requirement)
        if match:
            pins[_canonical(match[1])] = match[2]
    return pins


@functools.cache
def version_problem() -> str | None:
    """Why the snapshots cannot be compared here (one line naming the pins), or None."""
    pins = pinned_versions()
    unpinned = [p for p in SNAPSHOT_PACKAGES if p not in pins]
    if unpinned:
        return (
            f"pyproject.toml's test extra does not pin {', '.join(unpinned)}; the snapshots "
            f"depend on it: fix: pin it with == to the version the SVGs were recorded with"
        )
    differ = []
    for package in SNAPSHOT_PACKAGES:
        try:
            installed = version(package)
        except PackageNotFoundError:
            installed = "not installed"
        if installed != pins[package]:
            differ.append(f"{package} {installed} (pinned {pins[package]})")
    if not differ:
        return None
    wanted = " ".join(f"{p}=={pins[p]}" for p in SNAPSHOT_PACKAGES)
    return (
        f"the snapshots were recorded with {wanted}, but this environment has "
        f"{'; '.join(differ)}; fix: reinstall the test extra (rm -rf .venv && make test), or "
        f"after a deliberate upgrade update the pins and run "
        f"pytest tests/snapshots --snapshot-update and review the SVGs"
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Fail each snapshot test (in its call phase: reported FAILED) when the versions differ."""
    problem = version_problem()
    if problem is not None:
        pytest.fail(problem, pytrace=False)
