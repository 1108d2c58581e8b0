"""A project tool sent to a subdirectory runs that directory's scripts, and what they run in turn (PERM-17)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reference_impl import PermissionContext, decide_permission, parse_rule
from tests.test_rules import BASH


@pytest.mark.parametrize(
    "line", ["npm --prefix sub test", "npm --prefix=sub test", "npm -C sub test", "cd sub && npm test"]
)
def test_a_script_a_subdirectory_script_runs_is_read_in_that_subdirectory(line: str, tmp_path: Path) -> None:
    """sub/'s ``test`` runs ``npm run inner``, whose script runs a denied program: asked, never allowed.

    The project's own package.json has a ``test`` script too: the two are different scripts of one name.
    """
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": "echo top"}}), encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "package.json").write_text(
        json.dumps({"scripts": {"test": "npm run inner", "inner": "nuke --all"}}), encoding="utf-8"
    )
    rules = (
        parse_rule("Bash(nuke:*)", "deny", "projectSettings"),
        parse_rule("Bash(npm:*)", "allow", "projectSettings"),
    )
    decision = decide_permission(BASH, {"command": line}, PermissionContext(rules=rules, cwd=tmp_path))
    assert decision.behavior == "ask", (line, decision)
    assert "nuke" in decision.reason.detail
