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


def test_a_missing_folder_is_named_with_the_fix_and_not_created(tmp_path):
    path = tmp_path / "new" / "deeper" / "s.json"
    with pytest.raises(UsageError) as raised:
        check_export_paths({"--json": path, "--csv": None})
    assert str(raised.value) == (
        f"cannot write --json {path}: the folder {path.parent} does not exist; fix: create it "
        f"first (mkdir -p {path.parent}), or give a path in an existing folder"
    )
    assert not (tmp_path / "new").exists()
    spaced = tmp_path / "my exports" / "r.md"
    with pytest.raises(UsageError, match=r"\(mkdir -p '.*my exports'\)"):  # a command to paste
        check_export_paths({"--markdown": spaced})


def test_a_file_in_the_folder_the_command_creates_is_fine(tmp_path):
    """``run --out DIR --json DIR/s.json``: the run creates DIR (and its missing parents)
    before it writes the exports; ``interpreters`` its ``--out``, holding its run folders."""
    out = tmp_path / "new" / "run"
    check_export_paths({"--json": out / "s.json", "--markdown": out / "r.md"}, out)
    check_export_paths({"--json": out / "combined.json"}, made=out)
    assert not (tmp_path / "new").exists()  # created by the command, not by the check
    with pytest.raises(UsageError, match=r"the folder .* does not exist"):
        check_export_paths({"--csv": out / "exports" / "r.csv"}, out)  # one the run never makes


def test_a_folder_given_as_the_file_suggests_a_name(tmp_path):
    with pytest.raises(UsageError, match="is a folder; fix: give a file name such as"):
        check_export_paths({"--csv": Path(tmp_path)})


def test_a_dash_is_refused_rather_than_written_as_a_file_named_dash(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match=r"--json - would write a file named '-'; fix: give"):
        check_export_paths({"--json": Path("-")})
    assert not (tmp_path / "-").exists()


def test_a_write_failure_s_fix_follows_its_cause():
    """A full device asks for space; anything else (a virtual file system such as /proc, no
    permission, a read-only mount) for a folder one can write to."""
    import errno

    from overhead_tui.export import write_failure

    full = str(write_failure(Path("/mnt/x.md"), OSError(errno.ENOSPC, "No space left")))
    assert full.endswith("fix: free space on its device, or give a path on another one")
    for code in (errno.ENOENT, errno.EACCES, errno.EROFS):
        message = str(write_failure(Path("/proc/nope/x.md"), OSError(code, "no")))
        assert "free space" not in message
        assert message.endswith("fix: give a path in a folder you can write to")
