"""A read of a directory (Grep, Glob) meets a deny rule for what is beneath it (PERM-11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from tests.test_rules import GREP, READ


def _decide_read(tmp_path: Path, where: str, *rules: str, tool: object = GREP) -> str:
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key.txt").write_text("TOPSECRET\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    context = PermissionContext(
        mode="default",
        rules=tuple(parse_rule(r, "deny", "userSettings") for r in rules),
        cwd=tmp_path,
        project_root=tmp_path,
    )
    return decide_permission(tool, {"file_path": where}, context).behavior  # type: ignore[arg-type]


@pytest.mark.parametrize("where", ["secret", "secret/.", "./secret/.", "secret/", "./secret"])
def test_reading_the_denied_tree_itself_is_denied(tmp_path: Path, where: str) -> None:
    """PERM-11: ``Read(./secret/**)`` covers a search of ``secret`` (all it reads is denied)."""
    assert _decide_read(tmp_path, where, "Read(./secret/**)") == "deny"


@pytest.mark.parametrize("where", [".", "./", "src/..", str(Path("/"))])
def test_reading_a_tree_above_a_denied_file_asks(tmp_path: Path, where: str) -> None:
    """PERM-11: a search of a directory holding a denied file may read it: asked, not allowed."""
    rules = ("Read(./secret/**)", "Read(*.txt)", "Read(./secret/key.txt)")
    for number, text in enumerate(rules):
        assert _decide_read(_fresh(tmp_path, str(number)), where, text) != "allow", text


def _fresh(tmp_path: Path, name: str) -> Path:
    tmp_path.joinpath(name).mkdir()
    return tmp_path / name


def test_reading_a_tree_with_nothing_denied_beneath_is_allowed(tmp_path: Path) -> None:
    """PERM-11: no false ask: a search of ``src`` meets no file ``secret/**`` or ``*.pem`` covers."""
    assert _decide_read(_fresh(tmp_path, "a"), "src", "Read(./secret/**)") == "allow"
    assert _decide_read(_fresh(tmp_path, "b"), ".", "Read(*.pem)") == "allow"
    assert _decide_read(_fresh(tmp_path, "c"), "secret/key.txt", "Read(./src/**)", tool=READ) == "allow"
