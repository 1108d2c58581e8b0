"""``python -m reference_impl`` finds Claude Code's settings files by itself (PERM-4 over the wire).

``settings_files_found`` returns the user, project and local files that exist, lowest precedence
first (the order the rules and settings merge in), as ``--setting-sources`` selects them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl.agent._cli import settings_files_found


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    cwd, home = tmp_path / "project", tmp_path / "home"
    for path in (
        home / ".claude/settings.json",
        cwd / ".claude/settings.json",
        cwd / ".claude/settings.local.json",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    return cwd, home


def test_every_file_that_exists_lowest_precedence_first(tmp_path: Path) -> None:
    cwd, home = _tree(tmp_path)
    assert settings_files_found(cwd, home) == [
        ("userSettings", home / ".claude/settings.json"),
        ("projectSettings", cwd / ".claude/settings.json"),
        ("localSettings", cwd / ".claude/settings.local.json"),
    ]
    (cwd / ".claude/settings.json").unlink()
    assert [s for s, _ in settings_files_found(cwd, home)] == ["userSettings", "localSettings"]


def test_setting_sources_select_them(tmp_path: Path) -> None:
    cwd, home = _tree(tmp_path)
    assert [s for s, _ in settings_files_found(cwd, home, "local, user")] == ["userSettings", "localSettings"]
    assert settings_files_found(cwd, home, "") == []


def test_an_unknown_source_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"--setting-sources: unknown source\(s\) \['policy'\]"):
        settings_files_found(tmp_path, tmp_path, "user,policy")
