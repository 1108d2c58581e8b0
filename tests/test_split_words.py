"""Words the grammar splits where bash reads one: the reader fails closed (PERM-15, PERM-16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission
from reference_impl.permissions._bash_reader import split_command
from tests.test_rules import BASH

# tree-sitter-bash gives ``''\sub`` as two pieces (a raw string, then a word), bash one word; and it
# reads ``[c]d`` inside a group as a syntax error, taking the write after it along.
_SPLIT_TARGETS = [r"echo x > ''\sub/../.git/config", r"echo x >> ''\.git/config", r"printf x > ''\.bashrc"]
_UNREAD_WRITES = ["{ [x]y; echo x > .git/config; }", "touch cd; { [c]d .git && echo pwned > config; }"]


@pytest.mark.parametrize("line", _SPLIT_TARGETS)
def test_a_redirection_target_the_grammar_splits_is_a_write_only_known_when_it_runs(line: str) -> None:
    """The target bash writes is not the piece the grammar names: the write's target is unknown."""
    command = split_command(line)
    assert None in command.writes, (line, command.writes)
    assert not command.confident


@pytest.mark.parametrize("line", _SPLIT_TARGETS + _UNREAD_WRITES)
def test_a_protected_write_the_grammar_misreads_is_asked_in_bypass_mode(line: str, tmp_path: Path) -> None:
    """PERM-15: bypassPermissions never auto-allows a line whose writes the grammar could not read."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".git").mkdir()
    decision = decide_permission(
        BASH, {"command": line}, PermissionContext(mode="bypassPermissions", rules=(), cwd=tmp_path)
    )
    assert decision.behavior == "ask", (line, decision)
