"""Export paths are checked before anything is measured: one line naming the option and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from overhead_tui.commands.export_paths import check_export_paths
from overhead_tui.errors import UsageError


def test_a_file_where_a_folder_is_needed_names_the_option_and_the_fix(tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    with pytest.raises(UsageError) as raised:
        check_export_paths({"--markdown": a_file / "report.md"})
    message = str(raised.value)
    assert message.startswith(f"cannot write --markdown {a_file / 'report.md'}: ")
    assert f"{a_file} is not a folder; fix: " in message
    assert "\n" not in message


def test_missing_folders_are_fine(tmp_path):
    check_export_paths({"--json": tmp_path / "new" / "deeper" / "s.json", "--csv": None})
    assert not (tmp_path / "new").exists()  # created only when the file is written


def test_a_folder_given_as_the_file_suggests_a_name(tmp_path):
    with pytest.raises(UsageError, match="is a folder; fix: give a file name such as"):
        check_export_paths({"--csv": Path(tmp_path)})


def test_a_dash_is_refused_rather_than_written_as_a_file_named_dash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"--json - would write a file named '-'; fix: give"):
        check_export_paths({"--json": Path("-")})
    assert not (tmp_path / "-").exists()
