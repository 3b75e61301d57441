"""The licence pyproject.toml declares is shipped."""

from __future__ import annotations

import tomllib

from tests.conftest import ROOT


def test_license_file_matches_the_declared_license():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    text = (ROOT / "LICENSE").read_text()
    assert declared == "MIT" and text.startswith("MIT License")
    assert "Copyright (c) 2026 the overhead-tui authors" in text
